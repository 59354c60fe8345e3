import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { connect, createServer as createNetServer, isIP, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { canonicalHost } from '../../team/index.js';
import { allowingEntry } from './host-allow-list.js';

// Through require, not an ES import: on Node 22 an ES import of node:http reads every export of the
// module, among them the WebSocket getters that load undici (35 ms), and core must load none of it
// until a request is sent (redirect-safe-fetch.test.ts). Required when a proxy starts, not when
// core loads: every command loads this file, few start a proxy (node:http is 2 ms of `legion sessions`).
const http = (): typeof import('node:http') => createRequire(import.meta.url)('node:http') as typeof import('node:http');

/**
 * Legion's filtering proxy for sandboxed commands with `sandboxNetwork: { allow: [...] }`. The
 * command has no network of its own (bwrap's --unshare-net); a bridge inside the sandbox
 * (network-bridge.ts) carries its connections to 127.0.0.1 to this proxy's Unix socket, bound into
 * the sandbox. The proxy takes CONNECT (HTTPS and any other tunnel) and absolute-form HTTP requests,
 * and opens a connection only to a host the list allows; any other gets HTTP 403 and nothing is
 * resolved for it. The HTTP parsing is Node's own (llhttp, the parser of every Node server, which
 * Node's security releases maintain), the same choice as Anthropic's sandbox runtime: a proxy
 * library would add code between the parser and the check without adding safety.
 *
 * One proxy per Legion process, started on first need: one listening socket per allow-list (a
 * config edited while Legion runs gives later commands a new list, and running ones keep theirs).
 */
export class NetworkProxy {
  private readonly http = http().createServer();
  private readonly folder = mkdtempSync(join(SOCKET_PARENT, `${FOLDER_PREFIX}${process.pid}-`));
  private readonly listeners = new Map<string, { server: NetServer; socket: string }>();
  private readonly allowOf = new WeakMap<Socket, readonly string[]>();
  private readonly open = new Set<Duplex>();

  constructor() {
    removeOrphans();
    this.http.on('request', (request, response) => this.forward(request, response));
    this.http.on('connect', (request, client: Duplex, head: Buffer) => this.tunnel(request, client, head));
    // A client that sends garbage gets 400 from Node; the socket is not ours to log.
    this.http.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /**
   * The Unix socket that lets through what `allow` allows, listening when this returns (a Unix
   * socket is bound and listening synchronously in `listen`: a command started next can connect).
   */
  socketFor(allow: readonly string[]): string {
    const key = JSON.stringify([...allow].map(canonicalHost).sort());
    const known = this.listeners.get(key);
    if (known) return known.socket;
    const socket = join(this.folder, `${this.listeners.size}.sock`);
    const server = createNetServer((connection) => {
      this.allowOf.set(connection, allow);
      this.track(connection);
      this.http.emit('connection', connection);
    });
    server.on('error', () => undefined);
    server.listen(socket);
    // Legion exits when its work is done, not when the proxy is idle.
    server.unref();
    this.listeners.set(key, { server, socket });
    return socket;
  }

  /** Stops listening, ends every connection and removes the sockets' folder. */
  async close(): Promise<void> {
    for (const connection of this.open) connection.destroy();
    await Promise.all([...this.listeners.values()].map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.listeners.clear();
    this.removeFolder();
  }

  /** Synchronous, for process exit: the sockets' folder would otherwise stay behind in the temporary folder. */
  removeFolder(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }

  private track(connection: Duplex): void {
    this.open.add(connection);
    connection.once('close', () => this.open.delete(connection));
  }

  private allowed(request: IncomingMessage): readonly string[] {
    return this.allowOf.get(request.socket) ?? [];
  }

  /** An absolute-form request (`GET http://host/path`): sent on to an allowed host, its answer sent back. */
  private forward(request: IncomingMessage, response: ServerResponse): void {
    const target = parseAbsoluteUrl(request.url ?? '');
    if (!target) {
      plain(response, 400, 'Bad Request', 'legion: this proxy takes http:// URLs and CONNECT only\n');
      return;
    }
    const entry = allowingEntry(target.host, this.allowed(request));
    if (entry === undefined) {
      plain(response, 403, statusText(refusal(target.host)), `${refusal(target.host)}\n`);
      return;
    }
    const upstream = http().request(
      {
        host: target.host,
        port: target.port,
        method: request.method,
        path: target.path,
        headers: { ...endToEnd(request.headers), host: target.authority },
        lookup: guardedLookup(entry),
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) plain(response, 502, 'Bad Gateway', unreachable(target.authority, error));
      else response.destroy();
    });
    request.pipe(upstream);
  }

  /** CONNECT host:port: a tunnel to an allowed host, the bytes passed through untouched (TLS stays end to end). */
  private tunnel(request: IncomingMessage, client: Duplex, head: Buffer): void {
    client.on('error', () => undefined);
    const target = parseAuthority(request.url ?? '');
    if (!target) {
      client.end(answer(400, 'Bad Request', 'legion: CONNECT takes host:port\n'));
      return;
    }
    const entry = allowingEntry(target.host, this.allowed(request));
    if (entry === undefined) {
      // In the status line too: curl and git show only that line of a refused tunnel, Python's clients its reason.
      client.end(answer(403, statusText(refusal(target.host)), `${refusal(target.host)}\n`));
      return;
    }
    const upstream = connect({ host: target.host, port: target.port, lookup: guardedLookup(entry) });
    this.track(upstream);
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (!established && client.writable) client.end(answer(502, 'Bad Gateway', unreachable(`${target.host}:${target.port}`, error)));
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  }
}

/** The refusal every surface quotes: the command's output carries it, as the 403's body. */
export function refusal(host: string): string {
  return `legion: ${canonicalHost(host)} is not in sandboxNetwork.allow`;
}

/** A status line's reason phrase holds visible ASCII and spaces only. */
function statusText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

function unreachable(where: string, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return `legion: cannot reach ${where}${code ? ` (${code})` : ''}: ${error.message}\n`;
}

function plain(response: ServerResponse, status: number, reason: string, body: string): void {
  response.writeHead(status, reason, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
}

function answer(status: number, reason: string, body: string): string {
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** CONNECT's target: `name:port`, `a.b.c.d:port` or `[v6]:port`, nothing else (no user, path or query to confuse a later check). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@?#\s]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: canonicalHost(match[1]!), port };
}

function parseAbsoluteUrl(text: string): { host: string; port: number; path: string; authority: string } | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || url.username !== '' || url.password !== '') return undefined;
  return {
    host: canonicalHost(url.hostname),
    port: url.port === '' ? 80 : Number(url.port),
    path: `${url.pathname}${url.search}`,
    authority: url.host,
  };
}

/** Headers that concern one hop only (RFC 9110 §7.6.1), and the proxy's own: not passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)));
}

/**
 * Whether an address is the host itself (loopback or unspecified) or link-local (a cloud's metadata
 * service, 169.254.169.254, hands out credentials there), in IPv4, IPv6 or IPv4-mapped form.
 */
function isHostOrLinkLocal(address: string): boolean {
  const bare = address.toLowerCase().replace(/^::ffff:/, '');
  return (
    bare.startsWith('127.') || bare.startsWith('169.254.') || /^fe[89ab][0-9a-f]:/.test(bare) || ['0.0.0.0', '::1', '::'].includes(bare)
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves an allowed name as the system does, but a name allowed only by a wildcard may not lead
 * to the host itself or a link-local address: `*.example.com` must not become a way to the host's
 * 127.0.0.1 (or the metadata service) for whoever controls a name under it. A name listed exactly
 * (`localhost`) goes where it resolves.
 */
function guardedLookup(entry: string): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const usable =
        entry.startsWith('*.') && isIP(hostname) === 0 ? addresses.filter(({ address }) => !isHostOrLinkLocal(address)) : addresses;
      if (usable.length === 0) {
        const refused: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to this machine or a link-local address, which "${entry}" does not allow`,
        );
        refused.code = 'EACCES';
        return callback(refused, '');
      }
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

const FOLDER_PREFIX = 'legion-proxy-';

/**
 * Where the socket folders are made: /tmp, not the temporary folder TMPDIR names, because every
 * sandbox has a /tmp of its own. A socket elsewhere would be visible through the read-only host
 * filesystem, and a command with no network (or another allow-list) could connect to it.
 */
const SOCKET_PARENT = '/tmp';

/**
 * Removes the socket folders of Legion processes that died without their exit handler (a signal,
 * SIGKILL): each folder is named for its process, and one whose process is gone is no one's.
 */
function removeOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(SOCKET_PARENT).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^legion-proxy-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    rmSync(join(SOCKET_PARENT, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let shared: NetworkProxy | undefined;

/** This process's proxy, started on first need; its sockets are removed when the process exits. */
export function networkProxy(): NetworkProxy {
  if (!shared) {
    const proxy = new NetworkProxy();
    shared = proxy;
    process.once('exit', () => proxy.removeFolder());
  }
  return shared;
}

/** Closes this process's proxy, if one started (the next command that needs one starts another): for tests and embedders. */
export async function closeNetworkProxy(): Promise<void> {
  const proxy = shared;
  shared = undefined;
  await proxy?.close();
}
