import { inertLine } from '../render/terminal-text.js';
import type { ToolResultBlock, ToolUseBlock, UsageTotals } from '@legion-collective/core';

/** The one argument that says what a call is about, for a compact line. */
export function keyArgument(toolUse: ToolUseBlock, width = 60): string {
  const input = toolUse.input;
  if (typeof input !== 'object' || input === null) return '';
  const fields = input as Record<string, unknown>;
  for (const name of ['path', 'command', 'pattern', 'query', 'message', 'id', 'to', 'url', 'name']) {
    const value = fields[name];
    if (typeof value === 'string') return clip(value, width);
  }
  const first = Object.values(fields).find((value) => typeof value === 'string');
  return typeof first === 'string' ? clip(first, width) : '';
}

/** One line, at most `width` characters; newlines shown as ⏎, every other control made visible (the text is a model's or a tool's). */
export function clip(text: string, width: number): string {
  const flat = inertLine(text.replace(/[ \t\r]*\n[ \t\r]*/g, ' ⏎ ').trim());
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} m ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTokens(totals: Pick<UsageTotals, 'inputTokens' | 'outputTokens'>): string {
  const total = totals.inputTokens + totals.outputTokens;
  return total >= 10_000 ? `${(total / 1000).toFixed(1)}k tokens` : `${total} tokens`;
}

/** Dollars of priced calls; calls to models without a known price are said to be unpriced, never counted as free. */
export function formatCost(usd: number, unpricedCalls = 0): string {
  const known = usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
  if (unpricedCalls === 0) return known;
  return usd === 0 ? 'cost unknown' : `${known} + ${unpricedCalls} unpriced`;
}

/** What a tool result says in a word or two: ok with its size, or the start of the error. */
export function outcomeOf(result: ToolResultBlock): { ok: boolean; text: string } {
  if (result.isError) return { ok: false, text: clip(result.content, 60) };
  const lines = result.content.split('\n').length;
  return { ok: true, text: lines > 1 ? `ok, ${lines} lines` : clip(result.content, 40) || 'ok' };
}
