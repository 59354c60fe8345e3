import { useRef } from 'preact/hooks';
import type { Participant } from '../api/wire.js';

/** A participant as who it is, not what it does now: what the views that only name participants read. */
export type Person = Pick<Participant, 'id' | 'name' | 'type'>;

/** A participant's name from its config ("Cora Lead"); its id when it has none or is not in the roster. */
export function displayName(participants: readonly Person[], id: string): string {
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

/**
 * The participants as people: the same array while only their states change. Each state event
 * (sixteen in a turn of ten delegates) replaces the participants; the views that only name them
 * (a conversation's every message and tool call, the composer) are not drawn again for it.
 */
export function usePeople(participants: readonly Participant[]): readonly Person[] {
  const kept = useRef<readonly Person[]>([]);
  const known = kept.current;
  const same =
    known.length === participants.length &&
    participants.every((participant, index) => {
      const person = known[index]!;
      return person.id === participant.id && person.name === participant.name && person.type === participant.type;
    });
  if (!same) kept.current = participants.map(({ id, name, type }) => ({ id, type, ...(name !== undefined ? { name } : {}) }));
  return kept.current;
}
