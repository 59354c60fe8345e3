import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createMcpServer } from './mcp-server.js';
import type { ServeContext } from './serve-context.js';

/** One MCP client on standard input and output (how Claude Desktop, Claude Code and editors start a server); resolves when it closes. */
export async function serveStdio(context: ServeContext, stop: AbortSignal): Promise<void> {
  const server = createMcpServer(context);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The client ended its side: nothing more will come.
    process.stdin.once('end', () => resolve());
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
