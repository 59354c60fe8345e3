import type { Participant } from '../api/wire.js';

/** A participant's name from its config ("Cora Lead"); its id when it has none or is not in the roster. */
export function displayName(participants: readonly Participant[], id: string): string {
  return participants.find((participant) => participant.id === id)?.name ?? id;
}

/**
 * A colour per participant, the same in every view and every tab: a hue from the id's hash (ids
 * are stable, names may change). Saturation and lightness come from the theme (`--who-s`,
 * `--who-l`), so the colour reads on light and dark backgrounds alike.
 */
export function hueOf(id: string): number {
  let hash = 0;
  for (const character of id) hash = (Math.imul(hash, 31) + character.codePointAt(0)!) | 0;
  return Math.abs(hash) % 360;
}
