import { existsSync } from 'node:fs';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../../../store/index.js';

export const SCRATCHBOOK_FORMAT_VERSION = 1;
export const MAX_NOTE_CHARS = 2000;
export const MAX_NOTES = 200;

export const ScratchNoteSchema = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    text: z.string(),
    pinned: z.boolean(),
    status: z.enum(['open', 'done']),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type ScratchNote = z.infer<typeof ScratchNoteSchema>;

/** The saved scratchbook: `.legion/sessions/<session>/scratchbook/<agent>.json`. */
export const ScratchbookFileSchema = z.lazy(() =>
  z.object({
    version: z.literal(SCRATCHBOOK_FORMAT_VERSION),
    agentId: z.string(),
    /** Ids are never reused, so an old reference cannot land on a newer note. */
    nextId: z.number().int().positive(),
    notes: z.array(ScratchNoteSchema),
  }),
);
export type ScratchbookFile = z.infer<typeof ScratchbookFileSchema>;

export function readScratchbook(path: string, agentId: string): ScratchbookFile {
  if (!existsSync(path)) return { version: SCRATCHBOOK_FORMAT_VERSION, agentId, nextId: 1, notes: [] };
  return readJsonFile(path, ScratchbookFileSchema, { what: 'scratchbook' });
}

export function writeScratchbook(path: string, book: ScratchbookFile): void {
  writeJsonAtomic(path, book);
}

/** Adds a note; when the book is full, the oldest completed notes make room. Returns undefined if only open notes fill it. */
export function addNote(book: ScratchbookFile, text: string, pinned: boolean, now: string): ScratchNote | undefined {
  while (book.notes.length >= MAX_NOTES) {
    const oldestDone = book.notes.findIndex((note) => note.status === 'done');
    if (oldestDone < 0) return undefined;
    book.notes.splice(oldestDone, 1);
  }
  const note: ScratchNote = { id: `n${book.nextId}`, text, pinned, status: 'open', createdAt: now, updatedAt: now };
  book.nextId++;
  book.notes.push(note);
  return note;
}

/** Pinned open notes first, then the other open notes, each group oldest first; completed ones only on request. */
export function orderedNotes(book: ScratchbookFile, includeDone: boolean): ScratchNote[] {
  const open = book.notes.filter((note) => note.status === 'open');
  const ordered = [...open.filter((note) => note.pinned), ...open.filter((note) => !note.pinned)];
  return includeDone ? [...ordered, ...book.notes.filter((note) => note.status === 'done')] : ordered;
}

/** Compact lines: `n3 [pinned] text`. Also what a context builder can put back after a compaction. */
export function renderScratchbook(book: ScratchbookFile, includeDone = false): string {
  const notes = orderedNotes(book, includeDone);
  const done = book.notes.filter((note) => note.status === 'done').length;
  const hidden = !includeDone && done > 0 ? ` (${done} completed not shown; include_done to see them)` : '';
  if (notes.length === 0) return `The scratchbook has no open notes${hidden}.`;
  const lines = notes.map((note) => `${note.id}${note.pinned ? ' [pinned]' : ''}${note.status === 'done' ? ' [done]' : ''} ${note.text}`);
  return `${notes.length} note${notes.length === 1 ? '' : 's'}${hidden}:\n${lines.join('\n')}`;
}
