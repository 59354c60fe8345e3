import type { CallToolResult } from '@modelcontextprotocol/server';

/** A tool result the client's model can act on: the text, and the same facts as structured content. */
export function toolResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A failed call as a tool error (never a protocol error): what went wrong and what to do instead. */
export function toolError(error: string, structured: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text: error }], structuredContent: { status: 'error', error, ...structured }, isError: true };
}
