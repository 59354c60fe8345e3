import { errorMessage } from '../../../errors.js';
import type { McpServerConfig } from '../../../config/mcp-server-config.js';
import { McpServerConnection } from './McpServerConnection.js';

export type McpProbeResult = { ok: true; tools: string[]; durationMs: number } | { ok: false; error: string; durationMs: number };

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
    return { ok: true, tools: tools.map((tool) => tool.name), durationMs: Date.now() - started };
  } catch (error) {
    return { ok: false, error: errorMessage(error), durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
    await connection.close();
  }
}
