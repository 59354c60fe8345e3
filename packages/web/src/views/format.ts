import type { Participant, Totals } from '../api/wire.js';
import { visibleText } from './visible-text.js';

export const formatTokens = (count: number): string => (count >= 10_000 ? `${(count / 1000).toFixed(1)}k` : String(count));

export const formatCost = (costUsd: number | null): string => (costUsd === null ? 'unpriced' : `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`);

export const tokensOf = (totals: Totals): number =>
  totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens;

/** "1 message", "3 messages": nouns whose plural takes an s. */
export const plural = (number: number, noun: string): string => `${number} ${noun}${number === 1 ? '' : 's'}`;

export const formatTime = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
};

export const STATE_LABEL: Record<Participant['state'], string> = {
  idle: 'idle',
  thinking: 'thinking',
  tool: 'running a tool',
  delegate: 'waiting for a delegate',
  approval: 'waiting for approval',
  user: 'waiting for you',
};

/** A tool's input on one line of at most 90 characters, what a reader would not see made visible. */
export function oneLine(value: unknown): string {
  const text = visibleText(typeof value === 'string' ? value : JSON.stringify(value));
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
}

/** JSON for reading: strings stay strings. */
export const pretty = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
