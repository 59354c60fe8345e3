import type { ContentBlock, Message } from '../../../kernel/index.js';
import type { FinishReason, ToolDefinition } from '../llm-provider.js';

/** The subset of Anthropic's Messages API shapes Legion writes (kept local: the SDK loads lazily). */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * Legion's canonical messages → Anthropic's. Consecutive messages of one role
 * are merged (a failed turn can leave two user messages in a row), tool
 * results stay first in their user message as the API requires, and empty
 * text blocks, which the API rejects, are dropped.
 */
export function toAnthropicMessages(messages: readonly Message[]): AnthropicMessage[] {
  const result: AnthropicMessage[] = [];
  for (const message of messages) {
    const content = message.content.flatMap(toAnthropicBlock);
    if (content.length === 0) continue;
    const previous = result.at(-1);
    if (previous && previous.role === message.role) {
      previous.content = orderToolResultsFirst([...previous.content, ...content]);
    } else {
      result.push({ role: message.role, content });
    }
  }
  return result;
}

function toAnthropicBlock(block: ContentBlock): AnthropicContentBlock[] {
  switch (block.type) {
    case 'text':
      return block.text.length > 0 ? [{ type: 'text', text: block.text }] : [];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} }];
    case 'tool_result':
      return [{ type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, ...(block.isError ? { is_error: true } : {}) }];
  }
}

function orderToolResultsFirst(blocks: AnthropicContentBlock[]): AnthropicContentBlock[] {
  const results = blocks.filter((block) => block.type === 'tool_result');
  return results.length === 0 ? blocks : [...results, ...blocks.filter((block) => block.type !== 'tool_result')];
}

export function toAnthropicTools(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { type: 'object', ...tool.parameters } }));
}

export function fromAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}
