import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { matchingFiles } from './file-completion.js';

/** What Enter does with a message whose text ends in an `@path` reference. */
export type ReferenceEnter = { action: 'send' } | { action: 'complete'; text: string };

/**
 * Enter on a message ending in `@path` does the same whether or not the file list has shown yet
 * (it arrives a moment after the keystroke, so which came first is luck): a reference naming an
 * existing workspace file or folder exactly is sent as typed; one naming none is filled in with
 * its first completion, as the list's Enter does, and not sent. Undefined when the text ends in no
 * reference, or in one nothing completes (Enter then sends, as for any message).
 */
export function enterOnReference(text: string, root: string): ReferenceEnter | undefined {
  const token = /(?:^|\s)(@(?:"[^"]*"?|[^\s"]+))$/.exec(text)?.[1];
  if (token === undefined) return undefined;
  const path = token.replace(/^@"?/, '').replace(/"$/, '').replace(/\/$/, '');
  if (path !== '' && namesWorkspacePath(root, path)) return { action: 'send' };
  const first = matchingFiles(root, path)[0];
  return first ? { action: 'complete', text: text.slice(0, text.length - token.length) + first.value } : undefined;
}

function namesWorkspacePath(root: string, path: string): boolean {
  const inside = relative(root, resolve(root, path));
  if (inside.startsWith('..') || isAbsolute(inside)) return false;
  try {
    statSync(resolve(root, path));
    return true;
  } catch {
    return false;
  }
}
