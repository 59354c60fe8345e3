import { displayName, hueOf, type Person } from './names.js';
import { visibleText } from './visible-text.js';

/** Who wrote or does something: the name, in the participant's colour, with the id beside it when they differ. */
export function Who({ id, participants }: { id: string; participants: readonly Person[] }) {
  const name = displayName(participants, id);
  return (
    <span class="who" style={{ '--who-hue': String(hueOf(id)) }} data-participant={id}>
      <span class="who-dot" aria-hidden="true" />
      <strong>{visibleText(name)}</strong>
      {name !== id && <span class="muted who-id"> {visibleText(id)}</span>}
    </span>
  );
}
