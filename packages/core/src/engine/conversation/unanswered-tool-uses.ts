import type { Message, ToolUseBlock } from '../../kernel/index.js';

/** The tool_uses of the last assistant message that no later message answered. */
export function unansweredToolUses(messages: readonly Message[]): ToolUseBlock[] {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'assistant') continue;
    const uses = message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (uses.length === 0) return [];
    const answered = new Set<string>();
    for (const later of messages.slice(index + 1))
      for (const block of later.content) if (block.type === 'tool_result') answered.add(block.toolUseId);
    return uses.filter((use) => !answered.has(use.id));
  }
  return [];
}
