/** One line of at most `max` characters: whitespace folded, an ellipsis where it was cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "2026-11-25T21:50:34.123Z" → "2026-11-25 21:50:34" (UTC, as stored): readable, and still sorts. */
export function readableTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '');
}
