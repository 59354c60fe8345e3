import { directHosts } from './host-allow-list.js';

/** A sandboxed command's way to Legion's proxy: its Unix socket (bound into the sandbox) and the hosts it lets through. */
export interface ProxyRoute {
  socket: string;
  allow: readonly string[];
}

/**
 * The bridge, run by Node inside the sandbox: it listens on the sandbox's own 127.0.0.1 (a port
 * the kernel picks, printed once it listens) and carries each connection to the proxy's socket,
 * byte for byte. It can reach nothing the command could not: it runs in the same sandbox, with
 * the same user, and the socket is already there for the command to connect to. Node rather than
 * socat: Node is on every machine Legion runs on and readable inside the sandbox; socat often is not.
 */
const BRIDGE_SOURCE = `
const net = require('node:net');
const fs = require('node:fs');
const socket = process.argv[1];
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const proxy = net.connect({ path: socket, allowHalfOpen: true });
  const close = () => { client.destroy(); proxy.destroy(); };
  client.on('error', close);
  proxy.on('error', close);
  client.pipe(proxy);
  proxy.pipe(client);
});
server.listen(0, '127.0.0.1', () => fs.writeSync(1, server.address().port + '\\n'));
`;

/**
 * Starts the bridge, waits until it listens (its port arrives through a FIFO in the sandbox's
 * private /tmp), points the proxy variables at it, then becomes the command. The bridge dies with
 * the command: it lives in the command's PID namespace, which ends when the command does.
 * NODE_OPTIONS is cleared for the bridge only: a user's --require must not run in it or break it.
 */
const BRIDGE_THEN_EXEC = [
  'ready=$(mktemp -u /tmp/.legion-network-XXXXXXXX) && mkfifo -m 600 "$ready" || exit 125',
  'NODE_OPTIONS= "$1" -e "$2" "$3" >"$ready" </dev/null &',
  'read -r port <"$ready"',
  'rm -f "$ready"',
  `case $port in ''|*[!0-9]*) echo "legion: the sandbox's bridge to the network proxy did not start" >&2; exit 125;; esac`,
  'proxy=http://127.0.0.1:$port',
  'export HTTP_PROXY=$proxy HTTPS_PROXY=$proxy ALL_PROXY=$proxy http_proxy=$proxy https_proxy=$proxy all_proxy=$proxy NO_PROXY=$4 no_proxy=$4',
  'shift 4',
  'exec "$@"',
].join('\n');

/** The program and arguments that run `program args` behind the bridge (inside bwrap, which containment.ts adds around them). */
export function bridgedArgv(program: string, args: readonly string[], route: ProxyRoute): { program: string; args: string[] } {
  return {
    program: '/bin/sh',
    args: [
      '-c',
      BRIDGE_THEN_EXEC,
      'legion-network',
      process.execPath,
      BRIDGE_SOURCE,
      route.socket,
      directHosts(route.allow),
      program,
      ...args,
    ],
  };
}
