import { isAbsolute, join } from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { parsePatch } from 'diff';
import type { KeptFileChange, ToolUseBlock } from '@legion-collective/core';
import type { FileChange } from '@legion-collective/core/internal';

/** How an editor shows one of Legion's tool calls: its title, its icon's kind, the files it touches. */
export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
}

/** The ACP kind of each builtin tool (an editor picks the icon by it); MCP and workspace tools are `other`. */
const KINDS: Record<string, ToolKind> = {
  file_read: 'read',
  file_list: 'read',
  todo_read: 'read',
  scratch_read: 'read',
  artifact_read: 'read',
  get_participant: 'read',
  list_participants: 'read',
  list_conversations: 'read',
  list_sessions: 'read',
  list_tools: 'read',
  file_glob: 'search',
  file_grep: 'search',
  search_history: 'search',
  file_write: 'edit',
  file_edit: 'edit',
  scratch_add: 'edit',
  scratch_update: 'edit',
  file_delete: 'delete',
  shell_run: 'execute',
  process_start: 'execute',
  process_poll: 'execute',
  process_stop: 'execute',
  process_list: 'execute',
  todo_write: 'think',
  web_fetch: 'fetch',
};

/** Builtin tools whose `path` is a file of the workspace: the editor can follow it. */
const PATH_TOOLS = new Set(['file_read', 'file_write', 'file_edit', 'file_delete', 'file_list']);

/**
 * The view of a tool call made by `participant` (the entry agent's calls untitled by it, a
 * delegate's prefixed with its name, so the tree shows who does what). A delegation (`communicate`)
 * is titled with the delegate and what it was asked.
 */
export function toolCallView(toolUse: ToolUseBlock, options: { participant: string; entryAgent: string; root: string }): ToolCallView {
  const input = fieldsOf(toolUse.input);
  const by = options.participant === options.entryAgent ? '' : `${options.participant}: `;
  if (toolUse.name === 'communicate') {
    const to = typeof input.to === 'string' ? input.to : 'someone';
    const message = typeof input.message === 'string' ? input.message : '';
    return { title: `${by}asks ${to}: ${oneLine(message, 120)}`, kind: 'other', locations: [] };
  }
  const kind = KINDS[toolUse.name] ?? (/fetch/i.test(toolUse.name) ? 'fetch' : 'other');
  const path = typeof input.path === 'string' ? input.path : undefined;
  const locations = path !== undefined && PATH_TOOLS.has(toolUse.name) ? [{ path: absolute(options.root, path) }] : [];
  return { title: `${by}${toolUse.name}${subjectOf(toolUse.name, input)}`, kind, locations };
}

/** What a call is about, for its title: the command it runs, the file, the pattern. */
function subjectOf(tool: string, input: Record<string, unknown>): string {
  for (const field of ['command', 'path', 'pattern', 'query', 'url']) {
    const value = input[field];
    if (typeof value === 'string' && value.length > 0) return ` ${oneLine(value, 100)}`;
  }
  if (tool === 'todo_write') return ' (plan)';
  return '';
}

/**
 * A pending file tool's change as ACP diff content (core's one definition of a file change): the
 * file as it is and as it would be. A change that cannot be shown says why instead, as text.
 */
export function diffContent(change: FileChange, root: string): ToolCallContent[] {
  if (change.status === 'not_shown')
    return [{ type: 'content', content: { type: 'text', text: `The change to ${change.path} is not shown: ${change.reason}` } }];
  return [{ type: 'diff', path: absolute(root, change.path), oldText: change.before, newText: change.after }];
}

/**
 * A done call's kept file change (its result's `fileChange`) as ACP diff content: one diff per hunk,
 * each the hunk's lines as they were and as the call left them (the context lines in both), since
 * the whole file of that time is not kept. A new file's hunk has no old text; a deleted file's
 * new text is empty. A change not kept says why, before the result's own text.
 */
export function keptChangeContent(change: KeptFileChange, resultText: string, root: string): ToolCallContent[] {
  if (change.status === 'not_kept')
    return [
      { type: 'content', content: { type: 'text', text: `The change to ${change.path} was not kept: ${change.reason}` } },
      ...resultContent(resultText),
    ];
  const path = absolute(root, change.path);
  const hunks = parsePatch(change.patch)[0]?.hunks ?? [];
  if (hunks.length === 0) return resultContent(resultText);
  return hunks.map((hunk): ToolCallContent => {
    let oldText = '';
    let newText = '';
    for (const line of hunk.lines) {
      const text = `${line.slice(1)}\n`;
      if (line.startsWith(' ')) {
        oldText += text;
        newText += text;
      } else if (line.startsWith('-')) oldText += text;
      else if (line.startsWith('+')) newText += text;
    }
    return { type: 'diff', path, oldText: change.action === 'created' ? null : oldText, newText };
  });
}

/** What a permission request shows for a call that is not a file change: exactly what would run. */
export function inputContent(tool: string, input: unknown): ToolCallContent[] {
  const fields = fieldsOf(input);
  const text =
    tool === 'shell_run' && typeof fields.command === 'string'
      ? `$ ${fields.command}${typeof fields.cwd === 'string' ? `\n(in ${fields.cwd})` : ''}`
      : (JSON.stringify(input, null, 2) ?? String(input));
  return [{ type: 'content', content: { type: 'text', text } }];
}

/** A tool's result as the text content of its call. */
export function resultContent(text: string): ToolCallContent[] {
  return text.length === 0 ? [] : [{ type: 'content', content: { type: 'text', text } }];
}

function fieldsOf(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
}

function absolute(root: string, path: string): string {
  return isAbsolute(path) ? path : join(root, path);
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
