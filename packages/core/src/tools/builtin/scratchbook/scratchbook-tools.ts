import { z } from 'zod';
import { errorMessage } from '../../../kernel/index.js';
import { defineTool, type Tool, type ToolContext, type ToolResult } from '../../tool.js';
import { checkAgentStateKey } from '../agent-session-file.js';
import {
  addNote,
  MAX_NOTE_CHARS,
  MAX_NOTES,
  renderScratchbook,
  SCRATCHBOOK_FORMAT_VERSION,
  ScratchbookFileSchema,
  type ScratchbookFile,
  type ScratchNote,
} from './scratchbook.js';

const FOLDER = 'scratchbook';
const noteIdSchema = () => z.string().min(1).describe('The note id, e.g. "n3".');
const noteTextSchema = () => z.string().min(1).max(MAX_NOTE_CHARS);

// Every scratchbook tool changes only the caller's own notes inside the session folder, never the
// workspace, so they run like reads (no approval by default).

/** scratch_add, scratch_read, scratch_update, scratch_complete, scratch_pin, scratch_unpin. */
export function createScratchbookTools(): Tool[] {
  return [
    defineTool({
      name: 'scratch_add',
      description:
        'Add a note to your scratchbook: facts, decisions, open questions and progress you must not lose when your context is compacted. ' +
        `Keep notes short (at most ${MAX_NOTE_CHARS} characters); pin the ones that matter most. Only you see your notes; they last for this session.`,
      input: () =>
        z.object({
          text: noteTextSchema().describe('The note.'),
          pinned: z.boolean().optional().describe('Pin it: pinned notes are listed first.'),
        }),
      effect: 'read',
      execute: (input, context) =>
        update(context, (book) => {
          const note = addNote(book, input.text, input.pinned ?? false, new Date().toISOString());
          if (!note) return { error: `The scratchbook is full (${MAX_NOTES} open notes): complete some first.` };
          return { message: `Added ${note.id}${note.pinned ? ' (pinned)' : ''}.` };
        }),
    }),
    defineTool({
      name: 'scratch_read',
      description: 'Read your scratchbook: open notes, pinned ones first, with their ids. Set include_done to see completed notes too.',
      input: () => z.object({ include_done: z.boolean().optional().describe('Also list completed notes.') }),
      concurrent: true,
      effect: 'read',
      async execute(input, context) {
        const loaded = await load(context);
        if ('error' in loaded) return { status: 'error', error: loaded.error };
        return { status: 'success', data: renderScratchbook(loaded.book, input.include_done ?? false) };
      },
    }),
    defineTool({
      name: 'scratch_update',
      description: 'Replace the text of a note, keeping its id and pin; a completed note is reopened.',
      input: () => z.object({ id: noteIdSchema(), text: noteTextSchema().describe('The new text.') }),
      effect: 'read',
      execute: (input, context) =>
        changeNote(context, input.id, (note) => {
          note.text = input.text;
          note.status = 'open';
          return { message: `Updated ${note.id}.` };
        }),
    }),
    noteTool(
      'scratch_complete',
      'Mark a note done when it no longer needs attention; it leaves the default listing and loses its pin.',
      (note) => {
        note.status = 'done';
        note.pinned = false;
        return { message: `Completed ${note.id}.` };
      },
    ),
    noteTool('scratch_pin', 'Pin a note so that it is listed first.', (note) => {
      if (note.status === 'done') return { error: `${note.id} is completed; reopen it with scratch_update before pinning.` };
      note.pinned = true;
      return { message: `Pinned ${note.id}.` };
    }),
    noteTool('scratch_unpin', 'Unpin a note; it stays in the list after the pinned ones.', (note) => {
      note.pinned = false;
      return { message: `Unpinned ${note.id}.` };
    }),
  ];
}

/** A tool that changes one note, found by id, and takes nothing else. */
function noteTool(name: string, description: string, change: (note: ScratchNote) => Change): Tool {
  return defineTool({
    name,
    description,
    input: () => z.object({ id: noteIdSchema() }),
    effect: 'read',
    execute: (input, context) => changeNote(context, input.id, change),
  });
}

function changeNote(context: ToolContext, id: string, change: (note: ScratchNote) => Change): Promise<ToolResult> {
  return update(context, (book) => {
    const note = book.notes.find((candidate) => candidate.id === id);
    if (!note) return { error: `No note "${id}". Your notes: ${book.notes.map((candidate) => candidate.id).join(', ') || '(none)'}.` };
    const outcome = change(note);
    if ('message' in outcome) note.updatedAt = new Date().toISOString();
    return outcome;
  });
}

type Change = { message: string } | { error: string };

function emptyBook(agentId: string): ScratchbookFile {
  return { version: SCRATCHBOOK_FORMAT_VERSION, agentId, nextId: 1, notes: [] };
}

async function load(context: ToolContext): Promise<{ book: ScratchbookFile } | { error: string }> {
  const problem = checkAgentStateKey(context);
  if (problem) return { error: problem };
  try {
    return { book: (await context.session.agentState.get(FOLDER, context.callerId, ScratchbookFileSchema)) ?? emptyBook(context.callerId) };
  } catch (error) {
    return { error: `Your scratchbook cannot be read (${errorMessage(error)}).` };
  }
}

/**
 * Read, change, write, with no other change of this agent's scratchbook in
 * this process in between (the session's agent state queues them).
 */
async function update(context: ToolContext, change: (book: ScratchbookFile) => Change): Promise<ToolResult> {
  const problem = checkAgentStateKey(context);
  if (problem) return { status: 'error', error: problem };
  try {
    return await context.session.agentState.update(
      FOLDER,
      context.callerId,
      ScratchbookFileSchema,
      (current): { value?: ScratchbookFile; result: ToolResult } => {
        const book = current ?? emptyBook(context.callerId);
        const outcome = change(book);
        if ('error' in outcome) return { result: { status: 'error', error: outcome.error } };
        return { value: book, result: { status: 'success', data: outcome.message } };
      },
    );
  } catch (error) {
    return { status: 'error', error: `Your scratchbook cannot be read (${errorMessage(error)}).` };
  }
}
