import type { ToolResult } from '../../tool.js';

/** The fields of an MCP `tools/call` result Legion reads; typed loosely because servers vary. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Results from servers of protocol version 2024-10-07 and older. */
  toolResult?: unknown;
}

/**
 * An MCP tool result as a Legion tool result. Legion's content is text, so
 * text blocks pass through and other blocks (images, audio, resources) are
 * described in a line rather than pasted as base64 into the model's context.
 */
export function toToolResult(result: McpCallResult): ToolResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  let text = blocks
    .map(describeBlock)
    .filter((line) => line !== '')
    .join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined)
    text = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  if (result.isError === true) return { status: 'error', error: text || 'The MCP tool reported an error without details.' };
  return { status: 'success', data: text || '(no output)' };
}

function describeBlock(block: unknown): string {
  if (block === null || typeof block !== 'object') return '';
  const fields = block as Record<string, unknown>;
  switch (fields.type) {
    case 'text':
      return typeof fields.text === 'string' ? fields.text : '';
    case 'image':
    case 'audio':
      return `[${fields.type}: ${String(fields.mimeType ?? 'unknown type')}, ${base64Bytes(fields.data)} bytes]`;
    case 'resource': {
      const resource = (fields.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return `[resource ${String(resource.uri)}]\n${resource.text}`;
      return `[resource ${String(resource.uri)}: ${String(resource.mimeType ?? 'binary')}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${String(fields.name ?? '')} ${String(fields.uri)}]${typeof fields.description === 'string' ? ` ${fields.description}` : ''}`;
    default:
      return `[${String(fields.type)} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
