import { closeSync, fstatSync } from 'node:fs';
import type { ToolContext, ToolResult } from '../../tool.js';
import { describeFsError } from './fs-error.js';
import { FileTooLargeError, MAX_READ_BYTES, openInWorkspace, readDescriptor, type ResolvedPath } from '../../../store/index.js';

/**
 * What the editor has of a file the tool already resolved inside the workspace: its text (an
 * unsaved buffer included), an error when that text is larger than a file tool reads at once, or
 * `undefined` when the tool reads the disk (no editor, or it had nothing to give or failed).
 */
export async function readThroughEditor(
  context: ToolContext,
  absolutePath: string,
  requested: string,
  maxBytes: number = MAX_READ_BYTES,
): Promise<{ status: 'success'; content: Buffer } | Extract<ToolResult, { status: 'error' }> | undefined> {
  const editor = context.editorFiles;
  if (!editor?.readText) return undefined;
  let text: string | undefined;
  try {
    text = await editor.readText(absolutePath, context.signal);
  } catch {
    // The port says "nothing to give" with undefined; one that throws anyway is treated alike: the disk answers.
    return undefined;
  }
  if (text === undefined) return undefined;
  const content = Buffer.from(text, 'utf8');
  // Bounded as a read of the disk is: the editor is asked for a file, not trusted with the memory of this process.
  if (content.length > maxBytes)
    return { status: 'error', error: describeFsError(new FileTooLargeError(requested, content.length, maxBytes), requested, 'read') };
  return { status: 'success', content };
}

/**
 * A file's bytes as a file tool reads them: the editor's buffer when it has one, else the disk,
 * opened as file_read opens it (no link followed out of the workspace). `directory` is the refusal
 * for a folder where the caller has one to give; without it, reading a folder fails as the disk says.
 */
export async function readEditorOrDisk(
  context: ToolContext,
  resolved: Extract<ResolvedPath, { ok: true }>,
  requested: string,
  directory?: string,
): Promise<{ status: 'success'; content: Buffer } | Extract<ToolResult, { status: 'error' }>> {
  const fromEditor = await readThroughEditor(context, resolved.absolute, requested);
  if (fromEditor) return fromEditor;
  try {
    const { fd } = openInWorkspace(context.workspaceRoot!, resolved, requested, 'read');
    try {
      if (directory !== undefined && fstatSync(fd).isDirectory()) return { status: 'error', error: directory };
      return { status: 'success', content: readDescriptor(fd, requested) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { status: 'error', error: describeFsError(error, requested, 'read') };
  }
}

/** Whether the editor writes files (else the tool writes the disk, as without an editor). */
export function editorWrites(context: ToolContext): boolean {
  return context.editorFiles?.writeText !== undefined;
}

/** Writes a whole text through the editor: undefined once written, else the error for the model. */
export async function writeThroughEditor(
  context: ToolContext,
  absolutePath: string,
  requested: string,
  text: string,
): Promise<string | undefined> {
  const editor = context.editorFiles;
  if (!editor?.writeText) return `The editor does not write files.`;
  try {
    await editor.writeText(absolutePath, text, context.signal);
    return undefined;
  } catch (error) {
    return `The editor did not write "${requested}": ${error instanceof Error ? error.message : String(error)}. Nothing was changed.`;
  }
}
