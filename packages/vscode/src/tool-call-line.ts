import { visibleText } from './visible-text.js';

/** One progress line for a tool call: a delegation names its target; the model's text in it (a command, a path) made visible. */
export function describeToolCall(participantId: string, tool: string, input: unknown): string {
  return visibleText(toolCallLine(participantId, tool, input));
}

function toolCallLine(participantId: string, tool: string, input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  if (tool === 'communicate' && typeof fields['to'] === 'string') return `${participantId} → ${fields['to']}: delegating`;
  const target = ['path', 'command', 'pattern'].map((key) => fields[key]).find((value) => typeof value === 'string');
  return `${participantId}: ${tool}${typeof target === 'string' ? ` ${target.length > 80 ? `${target.slice(0, 77)}…` : target}` : ''}`;
}

/** Agent-chosen text shown as markdown: its syntax characters stay literal. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|]/g, (character) => `\\${character}`);
}
