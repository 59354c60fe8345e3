import { errorMessage } from '../../../kernel/index.js';
import type { McpServerConfig } from '../../../team/index.js';
import { loadTokenCounter } from '../../../model/index.js';
import { catalogueLine } from '../../builtin/tool-loading/catalogue.js';
import { McpServerConnection } from './McpServerConnection.js';
import { mcpFamily, mcpToolName } from './mcp-tool-name.js';
import { boundMcpTools } from './mcp-tool-bounds.js';

export type McpProbeResult =
  | {
      ok: true;
      tools: string[];
      /** The MCP protocol revision the server spoke (the newest both sides know). */
      revision: string | undefined;
      durationMs: number;
      /**
       * cl100k_base tokens of the tools' definitions as models get them (`schemaTokens`: every
       * schema, what each request carries with `lazy: false`) and of the server's line in the
       * `load_tools` catalogue (`listedTokens`: what a request carries with `lazy: true` until a tool is loaded).
       */
      schemaTokens: number;
      listedTokens: number;
      /** Descriptions cut, tools left out: what models will not get as the server wrote it (mcp-tool-bounds.ts). */
      warnings: string[];
    }
  | { ok: false; error: string; durationMs: number };

/**
 * Starts one configured MCP server, lists its tools and stops it, within
 * `timeoutMs` (start and listing together): what `legion doctor` checks. A
 * server that fails says why (its error and the end of its stderr); one that
 * hangs is stopped and reported as too slow. No tool is called.
 */
export async function probeMcpServer(
  name: string,
  config: McpServerConfig,
  options: { workspaceRoot: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<McpProbeResult> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const started = Date.now();
  const connection = new McpServerConnection(name, config, {
    workspaceRoot: options.workspaceRoot,
    env: options.env ?? process.env,
    startTimeoutMs: timeoutMs,
    onToolsChanged: () => undefined,
    onUnexpectedExit: () => undefined,
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`MCP server "${name}" did not start and list its tools within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const tools = await Promise.race([connection.listTools(), timeout]);
    const durationMs = Date.now() - started;
    const count = await loadTokenCounter();
    // Measured as models get them: within the bounds the provider applies.
    const bounded = boundMcpTools(name, tools);
    const definitions = bounded.tools.map(({ tool, description, parameters }) => ({
      name: mcpToolName(name, tool.name),
      description,
      parameters,
    }));
    const schemaTokens = definitions.reduce((total, definition) => total + count(JSON.stringify(definition)), 0);
    const listedTokens = definitions.length === 0 ? 0 : count(catalogueLine(mcpFamily(name), definitions));
    return {
      ok: true,
      tools: tools.map((tool) => tool.name),
      revision: connection.revision,
      durationMs,
      schemaTokens,
      listedTokens,
      warnings: bounded.warnings,
    };
  } catch (error) {
    return { ok: false, error: errorMessage(error), durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
    await connection.close();
  }
}
