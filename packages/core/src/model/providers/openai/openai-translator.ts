import type { Message } from '../../../kernel/index.js';
import type { FinishReason, ToolDefinition } from '../llm-provider.js';

/** The Chat Completions shapes Legion writes (kept local: the SDK loads lazily). */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Chat Completions has no error flag on tool results; this prefix tells the model. */
export const TOOL_ERROR_PREFIX = 'Error: ';

/**
 * Legion's canonical messages → Chat Completions. Tool results become `tool`
 * messages placed right after the assistant message that called them, before
 * any text the same user message carries.
 */
export function toOpenAIMessages(system: string, messages: readonly Message[]): OpenAIChatMessage[] {
  const result: OpenAIChatMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      let text = '';
      const calls: OpenAIToolCall[] = [];
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use')
          calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      }
      if (!text && calls.length === 0) continue;
      result.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    let text = '';
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        result.push({
          role: 'tool',
          tool_call_id: block.toolUseId,
          content: block.isError ? `${TOOL_ERROR_PREFIX}${block.content}` : block.content,
        });
      } else if (block.type === 'text') {
        text += block.text;
      }
    }
    if (text) {
      const previous = result.at(-1);
      // A failed turn can leave two user messages in a row; keep them one message.
      if (previous?.role === 'user') previous.content += `\n\n${text}`;
      else result.push({ role: 'user', content: text });
    }
  }
  return result;
}

export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { type: 'object', ...tool.parameters } },
  }));
}

export function fromOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}
