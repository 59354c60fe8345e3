import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { boundedLines } from './bounded-lines.js';
import { createMcpServer } from './mcp-server.js';
import { leadingRequestId } from './request-id.js';
import type { ServeContext } from './serve-context.js';
import { inertLine, stderr } from '../render/terminal-text.js';

/** The longest JSON-RPC message read on standard input: the SDK's own bound for stdio (10 MiB). */
export const MAX_STDIO_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** JSON-RPC's "Invalid Request": the message is not one this server takes. */
const INVALID_REQUEST = -32_600;

function mebibytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/** One MCP client on standard input and output (how Claude Desktop, Claude Code and editors start a server); resolves when it closes. */
export async function serveStdio(context: ServeContext, stop: AbortSignal, options: { maxMessageBytes?: number } = {}): Promise<void> {
  const limit = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
  const server = createMcpServer(context);
  // Lines over the limit never reach the SDK's transport, which would close (and the process exit 0) on one; the
  // lines it gets are whole and within the limit, so its own buffer bound only has to hold what one read brings.
  const lines = boundedLines(process.stdin, {
    maxLineBytes: limit,
    onOversized: (bytes, head) => {
      const id = leadingRequestId(head.toString('utf8'));
      const message = `The message is ${mebibytes(bytes)} (${bytes} bytes), over the limit of ${mebibytes(limit)} for one message on standard input; it was not read. Send less (a file path instead of its content).`;
      // The id is the client's: inert, like any text from outside that reaches a terminal.
      stderr.write(`legion mcp serve: refused a message on standard input${id === undefined ? '' : ` (request id ${inertLine(JSON.stringify(id))})`}: ${message}\n`);
      transport.send({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code: INVALID_REQUEST, message } }).catch(() => undefined);
    },
  });
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: 2 * limit + 1_048_576 });
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
