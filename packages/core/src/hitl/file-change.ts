import { closeSync } from 'node:fs';
import { FILE_READ_SUBJECT, type AuthEngine } from '../authorization/index.js';
import { FileTooLargeError, NotRegularFileError, openInWorkspace, readDescriptor, resolveToolPath } from '../store/index.js';
import type { EditorFiles } from '../session/index.js';
import type { Participant } from '../team/index.js';
import { applyEdit, looksBinary, worktreeRoot } from '../tools/index.js';

/** Files larger than this are not read to diff against (a diff of a larger one would not be read either). */
export const FILE_CHANGE_MAX_BYTES = 256 * 1024;

/**
 * What a pending `file_write` or `file_edit` would do to its file, for a person deciding on it:
 * - `shown`: the file as it is (`before`, null when it does not exist yet) and as it would be after the call;
 * - `not_shown`: the current content is not shown, and why (a path the tool refuses, one whose
 *   reading is denied, a binary or large file, or an edit that would fail on the file as it is).
 */
export type FileChange =
  { status: 'shown'; path: string; before: string | null; after: string } | { status: 'not_shown'; path: string; reason: string };

export interface FileChangeInput {
  workspaceRoot: string;
  auth: AuthEngine;
  /** The participant that asks to run the call: the policy that applies is its. */
  requester: Participant | undefined;
  tool: string;
  input: unknown;
  /** The worktree the requester works in (the request's `worktree`): its file is the one the call would change. */
  worktree?: string | undefined;
  /**
   * The file's text as the editor has it (an unsaved buffer), read beforehand by `fileChangeInEditor`:
   * the call would change that text, not the disk's.
   */
  editorText?: { absolute: string; text: string } | undefined;
}

/**
 * The change a file tool's call would make, read through the same path resolution as the tool
 * (`..`, absolute paths elsewhere, symbolic links out and `.legion/` are refused, the file opened
 * without following a link) and the same policy as reading it: a path the requester may not
 * `file_read` is not read for the person either, since what a card shows can end up anywhere the
 * card is (a screenshot, a shared screen). Other tools, and inputs without a path: undefined.
 */
export function fileChange(change: FileChangeInput): FileChange | undefined {
  const { auth, requester, tool, input } = change;
  const workspaceRoot = change.worktree === undefined ? change.workspaceRoot : worktreeRoot(change.workspaceRoot, change.worktree);
  if ((tool !== 'file_write' && tool !== 'file_edit') || typeof input !== 'object' || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  if (typeof fields.path !== 'string') return undefined;
  const path = fields.path;
  const notShown = (reason: string): FileChange => ({ status: 'not_shown', path, reason });
  const resolved = resolveToolPath(workspaceRoot, path, 'write');
  if (!resolved.ok) return notShown(resolved.error);
  if (requester === undefined)
    return notShown(`the requester is not a participant of this collective, so no policy says it may read "${path}".`);
  const reading = auth.evaluate({ participant: requester, tool: FILE_READ_SUBJECT, input: { path } });
  if (reading.mode === 'deny') return notShown(`reading "${path}" is denied (${reading.reason}).`);
  const fromEditor = change.editorText?.absolute === resolved.absolute ? change.editorText.text : undefined;
  const current = fromEditor !== undefined ? editorContent(fromEditor, path) : currentContent(workspaceRoot, resolved, path);
  if (typeof current === 'object' && current !== null) return notShown(current.reason);
  if (tool === 'file_write')
    return typeof fields.content === 'string' ? { status: 'shown', path, before: current, after: fields.content } : undefined;
  if (typeof fields.old_string !== 'string' || typeof fields.new_string !== 'string') return undefined;
  if (current === null) return notShown(`"${path}" does not exist: the edit would fail.`);
  if (fields.old_string === '') return notShown('old_string is empty: the edit would fail.');
  const edit = applyEdit(current, fields.old_string, fields.new_string, fields.replace_all === true);
  if (edit.status === 'not_found') return notShown('old_string is not in the file as it is now: the edit would fail.');
  if (edit.status === 'ambiguous')
    return notShown(`old_string occurs ${edit.positions.length} times in the file and replace_all is not set: the edit would fail.`);
  return { status: 'shown', path, before: current, after: edit.text };
}

/**
 * `fileChange` for a session driven from an editor that offers its files: the call's change to the
 * editor's text of the file (its unsaved buffer), which is what the file tools would change. The
 * editor is asked only for a path the tool accepts and the requester may read, in the workspace
 * itself (an isolated delegation's worktree is not the editor's); else, or when it has nothing to
 * give, this is `fileChange` of the disk.
 */
export async function fileChangeInEditor(
  change: FileChangeInput,
  files: EditorFiles | undefined,
  signal: AbortSignal,
): Promise<FileChange | undefined> {
  const fields = typeof change.input === 'object' && change.input !== null ? (change.input as Record<string, unknown>) : {};
  const path = fields.path;
  if (
    !files?.readText ||
    change.worktree !== undefined ||
    (change.tool !== 'file_write' && change.tool !== 'file_edit') ||
    typeof path !== 'string'
  )
    return fileChange(change);
  const resolved = resolveToolPath(change.workspaceRoot, path, 'write');
  if (!resolved.ok || change.requester === undefined) return fileChange(change);
  if (change.auth.evaluate({ participant: change.requester, tool: FILE_READ_SUBJECT, input: { path } }).mode === 'deny')
    return fileChange(change);
  let text: string | undefined;
  try {
    text = await files.readText(resolved.absolute, signal);
  } catch {
    text = undefined;
  }
  return fileChange(text === undefined ? change : { ...change, editorText: { absolute: resolved.absolute, text } });
}

/** The editor's text, bounded and checked as a file read for a card is. */
function editorContent(text: string, path: string): string | { reason: string } {
  const content = Buffer.from(text, 'utf8');
  if (content.length > FILE_CHANGE_MAX_BYTES) return { reason: `"${path}" is larger than ${FILE_CHANGE_MAX_BYTES / 1024} KiB.` };
  if (looksBinary(content)) return { reason: `"${path}" looks binary.` };
  return text;
}

/** The file's text; null when there is no file; or why it is not read. */
function currentContent(
  workspaceRoot: string,
  resolved: Extract<ReturnType<typeof resolveToolPath>, { ok: true }>,
  path: string,
): string | null | { reason: string } {
  let fd: number;
  try {
    fd = openInWorkspace(workspaceRoot, resolved, path, 'read').fd;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { reason: error instanceof Error ? error.message : String(error) };
  }
  try {
    const content = readDescriptor(fd, path, FILE_CHANGE_MAX_BYTES);
    if (looksBinary(content)) return { reason: `"${path}" looks binary.` };
    return content.toString('utf8');
  } catch (error) {
    if (error instanceof FileTooLargeError) return { reason: `"${path}" is larger than ${FILE_CHANGE_MAX_BYTES / 1024} KiB.` };
    if (error instanceof NotRegularFileError) return { reason: error.message };
    return { reason: error instanceof Error ? error.message : String(error) };
  } finally {
    closeSync(fd);
  }
}
