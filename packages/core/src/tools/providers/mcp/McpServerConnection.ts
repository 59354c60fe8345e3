import { resolve } from 'node:path';
import type { Client, PriorDiscovery, Tool as McpTool } from '@modelcontextprotocol/client';
import { errorMessage, LegionError } from '../../../kernel/index.js';
import { expandEnvReferences } from './env-references.js';
import { loadMcpSdk, type McpSdk } from './load-mcp-sdk.js';
import type { McpCallResult } from './mcp-result.js';
import type { ToolContext } from '../../tool.js';
import {
  parseElicitation,
  type ElicitationValue,
  type McpElicitation,
  type McpElicitationAnswer,
  type McpElicitHandler,
} from './elicitation.js';
import type { McpServerConfig } from '../../../team/index.js';
import { MCP_TOOL_LIMITS } from './mcp-tool-bounds.js';
import { containedArgv } from '../../child-processes/containment.js';
import { sandboxFlags, type SandboxProfile } from '../../child-processes/sandbox-profile.js';

/** How long a server may take to start and answer `initialize`. */
const START_TIMEOUT_MS = 30_000;

/** How long a stdio server has to answer server/discover before it is taken for one of the 2025 revisions. */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

/** The end of a server's stderr kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2000;

export interface McpServerHooks {
  /** Resolves a relative `cwd`; stdio servers start here when none is given. */
  workspaceRoot: string;
  /** Source of `${env:NAME}` in `env` and `headers`. */
  env: NodeJS.ProcessEnv;
  /** The server said its tool list changed. */
  onToolsChanged(): void;
  /** The server went away without being asked to. */
  onUnexpectedExit(message: string): void;
  /** How long it may take to start and answer `initialize` (default 30 s). */
  startTimeoutMs?: number;
  /**
   * Puts the server's `elicitation/create` requests to a human; without it
   * the client does not declare the elicitation capability (servers then do not ask).
   */
  elicit?: McpElicitHandler | undefined;
  /** An elicitation was declined without asking anyone: the server's request was malformed or nobody could answer. */
  onElicitationRefused?(message: string): void;
  /** The OS sandbox a stdio server runs in (an instance for an isolated turn's worktree): it writes only under the profile's root. */
  sandbox?: SandboxProfile | undefined;
}

/** The `elicitation/create` result Legion sends. */
interface ElicitResultSent {
  [key: string]: unknown;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, ElicitationValue>;
  _meta?: Record<string, unknown>;
}

/** A tool call in flight, for telling the user whose call a server's question interrupts. */
interface RunningCall {
  tool: string;
  context: ToolContext;
}

interface Live {
  client: Client;
  pid: number | null;
}

/**
 * One configured MCP server: started on first use, started again on the next
 * use after it died, stopped by `close()`. Calls that provably never reached a
 * server (it was already gone, or its HTTP session had expired) are retried
 * once on a fresh connection; others are not, since the tool may have run.
 */
export class McpServerConnection {
  private starting: Promise<Live> | undefined;
  private current: Live | undefined;
  private toolList: { from: Live; tools: McpTool[] } | undefined;
  private stderrTail = '';
  private closed = false;
  private readonly running = new Set<RunningCall>();
  /** The revision the server spoke when it last started: the next start skips asking. */
  private era: PriorDiscovery | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly hooks: McpServerHooks,
  ) {}

  /** The MCP protocol revision the server speaks, once it started (such as 2026-07-28, or 2025-11-25). */
  get revision(): string | undefined {
    return this.current?.client.getNegotiatedProtocolVersion();
  }

  /** The server's process id while a stdio server runs. */
  get pid(): number | undefined {
    return this.current?.pid ?? undefined;
  }

  /** Its tools, listed once per connection (and again after it says the list changed). */
  async listTools(): Promise<McpTool[]> {
    const live = await this.connect();
    if (this.toolList?.from === live) return this.toolList.tools;
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await live.client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
      // One past the bound is enough to know it was passed: a server that pages without end does not hold this up for ever.
    } while (cursor && tools.length <= MCP_TOOL_LIMITS.toolsPerServer);
    if (this.current === live) this.toolList = { from: live, tools };
    return tools;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number | undefined; context?: ToolContext | undefined },
  ): Promise<McpCallResult> {
    const call: RunningCall | undefined = options.context ? { tool: name, context: options.context } : undefined;
    if (call) this.running.add(call);
    try {
      for (let attempt = 1; ; attempt++) {
        const live = await this.connect();
        try {
          return await live.client.callTool(
            { name, arguments: args },
            {
              signal: options.signal,
              ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
            },
          );
        } catch (error) {
          const sdk = await loadMcpSdk();
          const neverSent = !options.signal.aborted && (isNotConnected(sdk, error) || isExpiredSession(sdk, error));
          if (neverSent || isUnreachable(error)) await this.drop(live);
          if (neverSent && attempt === 1) continue;
          throw error;
        }
      }
    } finally {
      if (call) this.running.delete(call);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.starting;
    const live = this.current;
    this.starting = undefined;
    this.current = undefined;
    this.toolList = undefined;
    await live?.client.close().catch(() => undefined);
    // A start still in flight sees `closed` and shuts its server down itself.
    await pending?.catch(() => undefined);
  }

  private connect(): Promise<Live> {
    if (this.closed)
      return Promise.reject(new LegionError('mcp_server_closed', `MCP server "${this.name}" has been shut down.`, { server: this.name }));
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async start(): Promise<Live> {
    const sdk = await loadMcpSdk();
    this.stderrTail = '';
    const elicit = this.hooks.elicit;
    // Form and URL mode: Legion asks the user in text either way (see hitl/ask-elicitation.ts).
    const client = new sdk.Client(
      { name: 'legion', version: '0.1.0' },
      {
        capabilities: elicit ? { elicitation: { form: {}, url: {} } } : {},
        // The newest revision the SDK speaks (2026-07-28), asked with server/discover; a server that does not know it is
        // spoken to with initialize, as before. On stdio a server that stays silent is taken for an old one after a while
        // (the SDK probes a sibling process, so this bounds one extra start); on HTTP the connect timeout applies.
        versionNegotiation: { mode: 'auto', ...(this.config.url === undefined ? { probe: { timeoutMs: STDIO_PROBE_TIMEOUT_MS } } : {}) },
      },
    );
    let transport: InstanceType<McpSdk['StdioClientTransport']> | InstanceType<McpSdk['StreamableHTTPClientTransport']>;
    try {
      transport = this.createTransport(sdk);
    } catch (error) {
      throw new LegionError(
        'mcp_server_unavailable',
        `MCP server "${this.name}" could not be started: ${errorMessage(error)}`,
        { server: this.name },
        { cause: error },
      );
    }
    const live: Live = { client, pid: null };
    client.onclose = () => this.onClosed(live);
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (this.current !== live) return;
      this.toolList = undefined;
      this.hooks.onToolsChanged();
    });
    if (elicit)
      client.setRequestHandler('elicitation/create', (request, context) =>
        this.answerElicitation(elicit, request.params, context.mcpReq.signal),
      );
    try {
      // A server started again is asked nothing: its revision is known from the first start.
      await client.connect(transport, { timeout: this.hooks.startTimeoutMs ?? START_TIMEOUT_MS, ...(this.era ? { prior: this.era } : {}) });
    } catch (error) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      throw new LegionError(
        'mcp_server_unavailable',
        `MCP server "${this.name}" could not be started: ${errorMessage(error)}${this.stderrHint()}`,
        { server: this.name },
        { cause: error },
      );
    }
    const discovered = client.getDiscoverResult();
    this.era =
      client.getProtocolEra() === 'modern' && discovered !== undefined ? { kind: 'modern', discover: discovered } : { kind: 'legacy' };
    live.pid = 'pid' in transport ? transport.pid : null;
    if (this.closed) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      throw new LegionError('mcp_server_closed', `MCP server "${this.name}" has been shut down.`, { server: this.name });
    }
    this.current = live;
    return live;
  }

  /** One `elicitation/create`: checked, attributed to the tool calls running, put to the user; the answer goes back as the server's result. */
  private async answerElicitation(elicit: McpElicitHandler, params: unknown, signal: AbortSignal): Promise<ElicitResultSent> {
    const parsed = parseElicitation(params);
    const refuse = (reason: string) => {
      this.hooks.onElicitationRefused?.(`MCP server "${this.name}" asked the user something; declined: ${reason}`);
      return { action: 'decline' as const, _meta: { [REASON_META_KEY]: reason } };
    };
    if (!parsed.ok) return refuse(`its elicitation request is not one Legion accepts: ${parsed.problem}`);
    const calls = [...this.running].map((call) => ({ tool: call.tool, context: call.context }));
    const request: McpElicitation = { server: this.name, calls, ...parsed.value };
    // The user stops being asked when the server withdraws its request or the tool call it belongs to ends.
    const signals = [signal, ...calls.map((call) => call.context.signal)];
    let answer: McpElicitationAnswer;
    try {
      answer = await elicit(request, { signal: AbortSignal.any(signals) });
    } catch (error) {
      if (signals.some((each) => each.aborted))
        return { action: 'cancel', _meta: { [REASON_META_KEY]: 'The tool call ended before the user answered.' } };
      return refuse(errorMessage(error));
    }
    if (answer.action === 'accept') return { action: 'accept', ...(answer.content !== undefined ? { content: answer.content } : {}) };
    if (answer.reason !== undefined)
      this.hooks.onElicitationRefused?.(
        `MCP server "${this.name}" asked the user something; ${answer.action === 'decline' ? 'declined' : 'cancelled'}: ${answer.reason}`,
      );
    return { action: answer.action, ...(answer.reason !== undefined ? { _meta: { [REASON_META_KEY]: answer.reason } } : {}) };
  }

  private createTransport(
    sdk: McpSdk,
  ): InstanceType<McpSdk['StdioClientTransport']> | InstanceType<McpSdk['StreamableHTTPClientTransport']> {
    const where = `mcpServers.${this.name}`;
    if (this.config.url !== undefined) {
      const headers = expandEnvReferences(this.config.headers, this.hooks.env, `${where}.headers`);
      return new sdk.StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers } });
    }
    const env = expandEnvReferences(this.config.env, this.hooks.env, `${where}.env`);
    const { sandbox } = this.hooks;
    // Sandboxed, the same bwrap run that confines a model's command confines the server; only its private /tmp is writable of the temporary folders.
    const run = sandbox
      ? containedArgv(this.config.command ?? '', this.config.args ?? [], sandboxFlags(sandbox))
      : { program: this.config.command ?? '', args: this.config.args ?? [] };
    const transport = new sdk.StdioClientTransport({
      command: run.program,
      args: run.args,
      // The SDK adds only PATH, HOME and the like: Legion's own keys are not handed to servers.
      env: sandbox ? { ...env, TMPDIR: '/tmp' } : env,
      cwd: resolve(this.hooks.workspaceRoot, this.config.cwd ?? '.'),
      // Piped, not inherited: a server's logging must not scribble over the terminal UI.
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private onClosed(live: Live): void {
    if (this.current !== live) return;
    this.current = undefined;
    this.starting = undefined;
    this.toolList = undefined;
    if (!this.closed)
      this.hooks.onUnexpectedExit(
        `MCP server "${this.name}" stopped unexpectedly${this.stderrHint()}; it will be started again on its next use.`,
      );
  }

  /** Forgets a connection that no longer works, so the next use starts afresh. */
  private async drop(live: Live): Promise<void> {
    if (this.current !== live) return;
    this.current = undefined;
    this.starting = undefined;
    this.toolList = undefined;
    live.client.onclose = undefined;
    await live.client.close().catch(() => undefined);
  }

  private stderrHint(): string {
    const tail = this.stderrTail.trim();
    return tail ? ` (its stderr ended with: ${tail.split('\n').slice(-5).join(' | ')})` : '';
  }
}

/** Where a decline or cancel says why, in the result's `_meta` (MCP's elicitation result has no field for it). */
export const REASON_META_KEY = 'legion-collective/reason';

/** A request made on a transport that already closed: it was never sent. */
function isNotConnected(sdk: McpSdk, error: unknown): boolean {
  return sdk.SdkError.isInstance(error) && error.code === 'NOT_CONNECTED';
}

/**
 * A Streamable HTTP server that forgot our session (it restarted) answers 404,
 * as the spec says, or 400 as some servers do; either way it refused the
 * request without running it, so a new session may retry it once.
 */
function isExpiredSession(sdk: McpSdk, error: unknown): boolean {
  return sdk.SdkHttpError.isInstance(error) && (error.status === 404 || error.status === 400);
}

/** An HTTP server that cannot be reached: keep nothing of the old session. */
function isUnreachable(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string';
}
