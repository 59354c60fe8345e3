import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inertLine } from '../render/terminal-text.js';
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions } from '@mariozechner/pi-tui';

/** Folders never offered: tools' caches and dependencies, not the user's files. */
const SKIPPED = new Set(['.git', 'node_modules', '.legion']);
/** A bound on the walk, so a huge tree cannot stall a keystroke. */
const MAX_ENTRIES = 20_000;
const MAX_SUGGESTIONS = 20;

/**
 * `@path` completion of workspace files. pi-tui's own `@` completion needs the
 * `fd` binary, which most machines lack (without it nothing was ever offered);
 * this walks the workspace in-process instead. Everything else (commands, their
 * arguments, applying a completion) is the wrapped provider's.
 */
export class WorkspaceFileCompletion implements AutocompleteProvider {
  constructor(
    private readonly inner: AutocompleteProvider,
    private readonly root: string,
  ) {}

  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? '').slice(0, cursorCol);
    const token = /(?:^|\s)(@(?:"[^"]*|[^\s"]*))$/.exec(before)?.[1];
    if (token === undefined) return this.inner.getSuggestions(lines, cursorLine, cursorCol, options);
    const items = matchingFiles(this.root, token.replace(/^@"?/, ''));
    return items.length > 0 ? { items, prefix: token } : null;
  }

  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    return this.inner.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.inner.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
  }
}

/** Workspace paths containing `query` (case-insensitive), those whose name starts with it first, then the shortest. */
export function matchingFiles(root: string, query: string): AutocompleteItem[] {
  const needle = query.toLowerCase();
  const found: Array<{ path: string; directory: boolean; rank: number }> = [];
  const pending = [''];
  let seen = 0;
  while (pending.length > 0 && seen < MAX_ENTRIES) {
    const dir = pending.shift() ?? '';
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) break;
      if (SKIPPED.has(entry.name)) continue;
      // A name a terminal would act on (an escape sequence, a bidi override) is neither typed nor offered.
      if (inertLine(entry.name) !== entry.name) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      const directory = entry.isDirectory();
      if (directory) pending.push(path);
      const at = path.toLowerCase().indexOf(needle);
      if (at === -1) continue;
      const name = entry.name.toLowerCase();
      found.push({ path, directory, rank: name.startsWith(needle) ? 0 : 1 });
    }
  }
  found.sort((a, b) => a.rank - b.rank || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return found.slice(0, MAX_SUGGESTIONS).map(({ path, directory }) => {
    const shown = directory ? `${path}/` : path;
    return { value: path.includes(' ') ? `@"${shown}"` : `@${shown}`, label: shown };
  });
}
