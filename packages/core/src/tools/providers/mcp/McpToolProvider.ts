import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../../kernel/index.js';
import type { LegionErrorCode, EventBus } from '../../../kernel/index.js';
import type { ToolContext, ToolEffect, ToolResult } from '../../tool.js';
import { compileJsonSchema, jsonSchemaInput } from '../json-schema-input.js';
import type { ProvidedTool, ToolProvider } from '../tool-provider.js';
import { McpServerConnection } from './McpServerConnection.js';
import { toToolResult } from './mcp-result.js';
import { boundMcpTools, type BoundedMcpTool } from './mcp-tool-bounds.js';
import type { McpServerConfig } from '../../../team/index.js';
import { mcpFamily, mcpToolName } from './mcp-tool-name.js';
import type { McpElicitHandler } from './elicitation.js';
import { worktreeRoute } from './worktree-route.js';

export interface McpToolProviderOptions {
  /** `config.mcpServers`. */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Where stdio servers start (a relative `cwd` is resolved from here). */
  workspaceRoot: string;
  /** Source of `${env:NAME}` in servers' `env` and `headers`; defaults to process.env. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Receives `error:raised` when a server cannot start or stops unexpectedly. */
  events?: EventBus | undefined;
  /**
   * Puts servers' elicitation requests (a question to the human during a tool
   * call) to the user; without it Legion does not offer elicitation to servers.
   */
  elicit?: McpElicitHandler | undefined;
}

export interface McpServerProblem {
  server: string;
  message: string;
}

export const MCP_TOOL_PROVIDER_ID = 'mcp';

interface Route {
  server: string;
  toolName: string;
  connection: McpServerConnection;
}

/**
 * The tools of the configured MCP servers, as `mcp__<server>__<tool>` with the
 * server's own JSON Schema. Nothing starts until the first `getTools()` or
 * call; a server that fails to start is reported and leaves the others working;
 * one that crashes is started again on its next use; `dispose()` stops them all.
 */
export class McpToolProvider implements ToolProvider {
  readonly id = MCP_TOOL_PROVIDER_ID;
  private readonly connections = new Map<string, McpServerConnection>();
  private routes = new Map<string, Route>();
  /** Tools by server and definition, so an unchanged listing yields the same objects (and no registry churn). */
  private made = new Map<string, ProvidedTool>();
  private readonly listeners = new Set<() => void>();
  private currentProblems: McpServerProblem[] = [];
  private readonly warned = new Set<string>();
  /** Instances of stdio servers confined to an isolated turn's worktree, by server and tree (`worktreeRoute`). */
  private readonly inWorktrees = new Map<string, { root: string; connection: McpServerConnection }>();

  constructor(private readonly options: McpToolProviderOptions) {
    const env = options.env ?? process.env;
    for (const [server, config] of Object.entries(options.servers)) {
      this.connections.set(
        server,
        new McpServerConnection(server, config, {
          workspaceRoot: options.workspaceRoot,
          env,
          onToolsChanged: () => this.listeners.forEach((listener) => listener()),
          onUnexpectedExit: (message) => this.report(server, message, 'mcp_server_exited'),
          elicit: options.elicit,
          onElicitationRefused: (message) => this.report(server, message, 'mcp_elicitation_declined'),
        }),
      );
    }
  }

  /** Servers that could not list their tools at the latest `getTools()`. */
  get problems(): readonly McpServerProblem[] {
    return this.currentProblems;
  }

  /** A running stdio server's process id (for diagnostics). */
  serverPid(server: string): number | undefined {
    return this.connections.get(server)?.pid;
  }

  async getTools(): Promise<ProvidedTool[]> {
    const problems: McpServerProblem[] = [];
    const routes = new Map<string, Route>();
    const made = new Map<string, ProvidedTool>();
    const lists = await Promise.all(
      [...this.connections].map(async ([server, connection]) => {
        try {
          const bounded = boundMcpTools(server, await connection.listTools());
          for (const warning of bounded.warnings) this.warnOnce(server, warning);
          return bounded.tools.map((tool) => this.toolFor(server, connection, tool, routes, made));
        } catch (error) {
          problems.push({ server, message: errorMessage(error) });
          this.report(server, errorMessage(error), 'mcp_server_unavailable');
          return [];
        }
      }),
    );
    // Replaced whole, so tools a server no longer offers stop routing.
    this.routes = routes;
    this.made = made;
    this.currentProblems = problems;
    return lists.flat();
  }

  async execute(name: string, input: unknown, context: ToolContext): Promise<ToolResult> {
    // Called before anything was listed (a direct call through the library API): list first, which starts the servers.
    if (!this.routes.has(name)) await this.getTools();
    const route = this.routes.get(name);
    if (!route) return { status: 'error', error: `No MCP tool "${name}" is known (its server may have stopped offering it).` };
    const args = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    const connection = this.connectionFor(route, context);
    if ('error' in connection) return { status: 'error', error: connection.error };
    try {
      const result = await connection.callTool(route.toolName, args, {
        signal: context.signal,
        timeoutMs: route.connection.config.timeoutMs,
        context,
      });
      return toToolResult(result);
    } catch (error) {
      if (context.signal.aborted) return { status: 'error', error: `${name} was cancelled.` };
      return { status: 'error', error: `MCP server "${route.server}" could not run "${route.toolName}": ${errorMessage(error)}` };
    }
  }

  /**
   * The connection a call goes through: the server's own, or, for a turn that works in a worktree
   * (its context's root is not the workspace), what `worktreeRoute` decides: an instance of the
   * server confined to that tree, or a refusal. Instances of trees that are gone are stopped here.
   */
  private connectionFor(route: Route, context: ToolContext): McpServerConnection | { error: string } {
    const treeRoot = context.workspaceRoot;
    if (treeRoot === undefined || resolve(treeRoot) === resolve(this.options.workspaceRoot)) return route.connection;
    const decided = worktreeRoute(route.server, route.connection.config, {
      workspaceRoot: this.options.workspaceRoot,
      treeRoot,
      env: this.options.env ?? process.env,
    });
    if (decided.kind === 'refused') return { error: decided.error };
    if (decided.kind === 'main') return route.connection;
    for (const [key, instance] of this.inWorktrees)
      if (!existsSync(instance.root)) {
        this.inWorktrees.delete(key);
        void instance.connection.close();
      }
    const key = `${route.server}\u0000${treeRoot}`;
    let instance = this.inWorktrees.get(key);
    if (!instance) {
      const server = route.server;
      const connection = new McpServerConnection(server, decided.config, {
        workspaceRoot: treeRoot,
        env: this.options.env ?? process.env,
        // Its tools are the server's, listed by the main instance: a change of this one's list is not the registry's.
        onToolsChanged: () => undefined,
        onUnexpectedExit: (message) => this.report(server, message, 'mcp_server_exited'),
        elicit: this.options.elicit,
        onElicitationRefused: (message) => this.report(server, message, 'mcp_elicitation_declined'),
        sandbox: decided.sandbox,
      });
      this.inWorktrees.set(key, (instance = { root: treeRoot, connection }));
    }
    return instance.connection;
  }

  onDidChangeTools(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async dispose(): Promise<void> {
    this.listeners.clear();
    const worktreeInstances = [...this.inWorktrees.values()].map((instance) => instance.connection);
    this.inWorktrees.clear();
    await Promise.all([...this.connections.values(), ...worktreeInstances].map((connection) => connection.close()));
  }

  private toolFor(
    server: string,
    connection: McpServerConnection,
    bounded: BoundedMcpTool,
    routes: Map<string, Route>,
    made: Map<string, ProvidedTool>,
  ): ProvidedTool {
    const { tool } = bounded;
    const name = mcpToolName(server, tool.name);
    routes.set(name, { server, toolName: tool.name, connection });
    const key = `${server}\u0000${JSON.stringify([tool.name, tool.description, tool.title, tool.inputSchema])}`;
    const provided = this.made.get(key) ?? this.makeTool(server, connection.config, name, bounded);
    made.set(key, provided);
    return provided;
  }

  private makeTool(server: string, config: McpServerConfig, name: string, { tool, description, parameters }: BoundedMcpTool): ProvidedTool {
    let inputSchema: z.ZodType<unknown>;
    try {
      inputSchema = jsonSchemaInput(compileJsonSchema(parameters));
    } catch (error) {
      // The server still validates its own input; a schema ajv cannot compile should not hide the tool.
      this.report(
        server,
        `the input schema of "${tool.name}" ${errorMessage(error)}; inputs go to the server unchecked`,
        'mcp_schema_invalid',
      );
      inputSchema = z.unknown();
    }
    // MCP tools reach outside Legion; until a policy says otherwise, a person approves each call.
    const effect: ToolEffect = config.url === undefined ? 'shell' : 'network';
    return {
      name,
      description,
      family: mcpFamily(server),
      ...(config.lazy === undefined ? {} : { lazy: config.lazy }),
      parameters,
      inputSchema,
      effect,
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    };
  }

  /** A tool cut or left out is said once per server and problem, not at every listing. */
  private warnOnce(server: string, message: string): void {
    const key = `${server}\u0000${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.report(server, message, 'mcp_tool_limited');
  }

  private report(server: string, message: string, code: LegionErrorCode): void {
    this.options.events?.emit('error:raised', { scope: `mcp server ${server}`, message, code });
  }
}

export function createMcpToolProvider(options: McpToolProviderOptions): McpToolProvider {
  return new McpToolProvider(options);
}
