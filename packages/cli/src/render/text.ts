import { inertLine } from './terminal-text.js';

/** One line of at most `max` characters: spaces, tabs and line breaks folded, every other control made visible, an ellipsis where it was cut. */
export function clip(text: string, max: number): string {
  const flat = inertLine(text.replace(/(?:\r\n|[ \t\n])+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "2026-11-25T21:50:34.123Z" → "2026-11-25 21:50:34" (UTC, as stored): readable, and still sorts. */
export function readableTime(iso: string): string {
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')
    .replace(/Z$/, '');
}
