import { INVALID_REQUEST, PARSE_ERROR, parseJSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { serveStdio as serveMcpStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { boundedLines } from './bounded-lines.js';
import { createMcpServer } from './mcp-server.js';
import { leadingRequestId } from './request-id.js';
import type { ServeContext } from './serve-context.js';
import { inertLine, stderr } from '../render/terminal-text.js';

/** The longest JSON-RPC message read on standard input: the SDK's own bound for stdio (10 MiB). */
export const MAX_STDIO_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

function mebibytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/**
 * One MCP client on standard input and output (how Claude Desktop, Claude Code
 * and editors start a server); resolves when it closes. Its first message
 * decides the revision, through the SDK: `initialize` (2025-06-18, 2025-11-25
 * and older) or a request carrying the 2026-07-28 envelope (`server/discover`).
 */
export async function serveStdio(context: ServeContext, stop: AbortSignal, options: { maxMessageBytes?: number } = {}): Promise<void> {
  const limit = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
  // Lines over the limit never reach the SDK's transport, which would close (and the process exit 0) on one; the
  // lines it gets are whole and within the limit, so its own buffer bound only has to hold what one read brings.
  const lines = boundedLines(process.stdin, {
    maxLineBytes: limit,
    admit: (line) => admit(line),
    onOversized: (bytes, head) => {
      const id = leadingRequestId(head.toString('utf8'));
      const message = `The message is ${mebibytes(bytes)} (${bytes} bytes), over the limit of ${mebibytes(limit)} for one message on standard input; it was not read. Send less (a file path instead of its content).`;
      // The id is the client's: inert, like any text from outside that reaches a terminal.
      stderr.write(
        `legion mcp serve: refused a message on standard input${id === undefined ? '' : ` (request id ${inertLine(JSON.stringify(id))})`}: ${message}\n`,
      );
      transport
        .send({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code: INVALID_REQUEST, message } })
        .catch(() => undefined);
    },
  });
  /** Says on standard error, and to the client as a JSON-RPC error (without id when none can be read), why a line was not read. */
  const refuse = (code: number, id: string | number | undefined, message: string): void => {
    stderr.write(
      `legion mcp serve: skipped a line on standard input${id === undefined ? '' : ` (request id ${inertLine(JSON.stringify(id))})`}: ${inertLine(message)}\n`,
    );
    transport.send({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } }).catch(() => undefined);
  };
  // The SDK's transport skips, without a word, a line that is not JSON (and reports one that is not JSON-RPC only to
  // its own onerror): the request on it would wait for ever. Each line is checked here by the SDK's own rule
  // (the same parse and schema its transport applies), so what is passed on is what it reads, and the rest is answered.
  const admit = (line: Buffer): boolean => {
    const text = line.toString('utf8').replace(/\r$/, '');
    // A blank line carries no message: nothing to answer.
    if (text.trim().length === 0) return false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      refuse(
        PARSE_ERROR,
        undefined,
        `Parse error: the line is not JSON (${error instanceof Error ? error.message : String(error)}); it was skipped. Send one JSON-RPC message per line.`,
      );
      return false;
    }
    try {
      parseJSONRPCMessage(value);
      return true;
    } catch {
      refuse(
        INVALID_REQUEST,
        requestIdOf(value),
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message ({"jsonrpc": "2.0", "id", "method", "params"}); it was skipped.',
      );
      return false;
    }
  };
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: 2 * limit + 1_048_576 });
  // The SDK owns the transport: it starts it, reads every message, and pins one server (of the era the client opened with) to it.
  const connection = serveMcpStdio(({ era }) => createMcpServer(context, era), { transport });
  const closedBySdk = transport.onclose;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      closedBySdk?.();
      resolve();
    };
    // The client ended its side: nothing more will come.
    process.stdin.once('end', () => resolve());
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await closed;
  await connection.close().catch(() => undefined);
}

/** The id of a message that is not valid JSON-RPC, when it has a usable one (a string or an integer). */
function requestIdOf(value: unknown): string | number | undefined {
  if (typeof value !== 'object' || value === null || !('id' in value)) return undefined;
  const { id } = value;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined;
}
