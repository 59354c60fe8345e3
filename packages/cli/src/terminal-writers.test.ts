import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Text from outside reaches a terminal only through the writers of `render/terminal-text.ts` (every command) or the
 * REPL's `Screen` (which passes everything it is given through the same `terminalSafe`). This test
 * reads the CLI's sources and fails when anything else writes to a stream or a pi-tui component:
 * a new writer must go through them, or be added below with the reason it is safe.
 */
const SOURCE = fileURLToPath(new URL('.', import.meta.url));

/** Each file allowed to write around the writers, with what it may write and why. */
const ALLOWED: Record<string, { pattern: RegExp; why: string }[]> = {
  'render/terminal-text.ts': [{ pattern: /stream\.write\(/g, why: 'the writer itself: terminalSafe for text, JSON.stringify for JSON' }],
  'repl/screen.ts': [
    { pattern: /process\.stderr\.write = /g, why: 'puts its stderr capture in place and back' },
    { pattern: /process\.stderr\.write\(terminalSafe\(/g, why: 'the rest of a captured line, made safe' },
    { pattern: /\.setText\((?:terminalSafe\(|text \? terminalSafe\()/g, why: 'every component the Screen fills, made safe' },
  ],
  'repl/card-view.ts': [{ pattern: /this\.text\.setText\(/g, why: 'the card text Screen.setCard made safe' }],
  // readline writes its prompt to the terminal: these prompts hold only Legion's words or text made inert.
  'approval-prompt.ts': [{ pattern: /readline\.question\(/g, why: 'names through inertLine' }],
  'commands/sessions.ts': [{ pattern: /readline\.question\(/g, why: 'the id and title through inertLine' }],
  'repl/chat-command.ts': [{ pattern: /readline\.question\(/g, why: 'the directory through inertLine' }],
  'confirm.ts': [{ pattern: /prompt\.question\(/g, why: "its callers' questions (checked where confirm is called)" }],
  'run-cli.ts': [{ pattern: /stream\.write\('', /g, why: 'an empty write to wait for the stream to drain' }],
  'mcp-serve/bounded-lines.ts': [{ pattern: /output\.write\(/g, why: 'whole JSON-RPC lines into the SDK transport: a pipe between two parsers, no terminal' }],
};

/** The writers of render/terminal-text.ts: `stdout`, `stderr`, a `TerminalOut` named `out`. */
const THROUGH_THE_WRITERS = /(?<![.\w])(?:stdout|stderr|out)\.(?:write|json)\(/g;

/** Emptying a component, and the input line, which holds only what the user typed (or recalled from their history). */
const HARMLESS = /editor\.setText\(|\.setText\(''\)/g;

/** Ways of reaching a terminal: a stream's write, a readline prompt, the console, a pi-tui component's text. */
const WRITERS = /\.question\(|\.write\(|\.write = |console\.(?:log|info|warn|error|debug)\(|\.setText\(|new Text\('[^']/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.includes('test-support') ? [path] : [];
  });
}

describe('every terminal writer goes through the one sanitizer', () => {
  it('no source writes to a stream, the console or a pi-tui component but the writers', () => {
    const found: string[] = [];
    for (const path of sources(SOURCE)) {
      const file = relative(SOURCE, path).split('\\').join('/');
      let text = readFileSync(path, 'utf8');
      // Comments may name a writer.
      text = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const allowed of ALLOWED[file] ?? []) text = text.replace(allowed.pattern, '');
      text = text.replace(HARMLESS, '');
      if (/render\/terminal-text\.js'|from '\.\/terminal-text\.js'/.test(text)) text = text.replace(THROUGH_THE_WRITERS, '');
      for (const match of text.matchAll(WRITERS)) found.push(`${file}: ${match[0]}`);
    }
    expect(found, 'write through render/terminal-text.ts (stdout, stderr, terminalOut) or the REPL Screen').toEqual([]);
  });
});
