import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** Entries kept across runs; older ones are dropped when the file is rewritten. */
const LIMIT = 1000;
const EntrySchema = z.string().min(1);

/**
 * What the user typed, across runs: one JSON string per line (an entry may span
 * lines), appended as it is submitted, in the workspace's `.legion/run/`
 * (git-ignored, per workspace, like the rest of the run state).
 */
export class InputHistory {
  readonly entries: string[];

  constructor(private readonly file: string) {
    this.entries = load(file);
    // Compacted on start, so the file never grows without bound.
    if (this.entries.length >= LIMIT) this.rewrite();
  }

  add(text: string): void {
    if (!text.trim() || this.entries.at(-1) === text) return;
    this.entries.push(text);
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(text)}\n`);
    } catch {
      // History is a convenience: a read-only disk must not stop the REPL.
    }
  }

  /** The newest entry before `before` (an index into entries) containing `query`, newest first. */
  search(query: string, before = this.entries.length): { index: number; text: string } | undefined {
    for (let index = Math.min(before, this.entries.length) - 1; index >= 0; index -= 1) {
      const text = this.entries[index]!;
      if (text.includes(query)) return { index, text };
    }
    return undefined;
  }

  private rewrite(): void {
    this.entries.splice(0, this.entries.length - LIMIT + 100);
    try {
      writeFileSync(this.file, this.entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    } catch {
      // As above.
    }
  }
}

function load(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const parsed = EntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // A torn last line (the process died mid-append) is skipped.
    }
  }
  return entries;
}
