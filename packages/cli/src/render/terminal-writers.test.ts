import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Text from outside reaches a terminal only through the writers of `render/terminal-text.ts` (every command) or the
 * REPL's `Screen` (which passes everything it is given through the same `terminalSafe`). This test
 * reads the CLI's sources and fails when anything else writes to a stream or a pi-tui component:
 * a new writer must go through them, or be added below with the reason it is safe.
 */
const SOURCE = fileURLToPath(new URL('..', import.meta.url));

/** Each file allowed to write around the writers, with what it may write and why. */
const ALLOWED: Record<string, { pattern: RegExp; why: string }[]> = {
  'render/terminal-text.ts': [{ pattern: /stream\.write\(/g, why: 'the writer itself: terminalSafe for text, JSON.stringify for JSON' }],
  'repl/screen.ts': [
    { pattern: /process\.stderr\.write = /g, why: 'puts its stderr capture in place and back' },
    { pattern: /process\.stderr\.write\(terminalSafe\(/g, why: 'the rest of a captured line, made safe' },
    { pattern: /\.setText\((?:terminalSafe\(|text \? terminalSafe\()/g, why: 'every component the Screen fills, made safe' },
    {
      pattern: /\.setText\(typeof text === 'string' \? terminalSafe\(text\) : \(width\) => terminalSafe\(text\(width\)\)/g,
      why: 'the card, a text or one composed at each width (a question rendered from markdown), made safe either way',
    },
    {
      pattern: /this\.terminal\.write\(`\\x1b\[\$\{rows\};1H\$\{'\\n'\.repeat\(rows\)\}\\x1b\[H`\)/g,
      why: '/clear: new lines that scroll the screen into the scrollback',
    },
    {
      pattern: /this\.terminal\.write\(`\\x1b\]52;c;\$\{Buffer\.from\(text, 'utf8'\)\.toString\('base64'\)\}\\x07`\)/g,
      why: '/copy: OSC 52 with the text base64-encoded, so none of it is a control',
    },
  ],
  'repl/card-view.ts': [
    { pattern: /this\.(?:text|tailText)\.setText\(/g, why: 'the card text Screen.setCard made safe, and its tail (the menu)' },
  ],
  // readline writes its prompt to the terminal: these prompts hold only Legion's words or text made inert.
  'approval-prompt.ts': [{ pattern: /readline\.question\(/g, why: 'names through inertLine' }],
  'question-prompt.ts': [{ pattern: /readline\.question\(/g, why: 'a fixed prompt, no model text' }],
  'repl/remote-offers.ts': [{ pattern: /questions\.question\(/g, why: 'reads the question log, writes nothing' }],
  'a2a-serve/legion-executor.ts': [{ pattern: /questions\.question\(/g, why: 'reads the question log, writes nothing' }],
  'commands/sessions.ts': [{ pattern: /readline\.question\(/g, why: 'the id and title through inertLine' }],
  'repl/chat-command.ts': [{ pattern: /readline\.question\(/g, why: 'the directory through inertLine' }],
  'confirm.ts': [{ pattern: /prompt\.question\(/g, why: "its callers' questions (checked where confirm is called)" }],
  'run-cli.ts': [{ pattern: /stream\.write\('', /g, why: 'an empty write to wait for the stream to drain' }],
  'commands/run-progress.ts': [
    { pattern: /stream\.write\(CLEAR_LINE\)/g, why: 'erases its own status line: a fixed control sequence, no text' },
  ],
  'mcp-serve/bounded-lines.ts': [
    { pattern: /output\.write\(/g, why: 'whole JSON-RPC lines into the SDK transport: a pipe between two parsers, no terminal' },
  ],
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

/**
 * `terminalSafe` lets Legion's own colour codes through, so it cannot tell them from the same codes
 * in a model's text: a reply printed without `inert` still paints (a fake green "✓ approved" line).
 * The writers' check above cannot see that, so this one reads what is printed: a turn's reply
 * (`.reply`) and a turn's or an answer's error (`result.error`, `outcome.error`) are a model's or a
 * provider's words, and reach a terminal source only made inert.
 */
const OUTSIDE_TEXT = /(?<![\w.])(?:(?:\w+\.)+reply|(?:\w+\.)*(?:result|outcome)\.error)\b/g;

/** Where that text may stand: made inert, a JSON field, a test for presence, or the message of an error thrown to `run-cli.ts` (which makes it inert). */
const INERT_PLACES = /(?:inert|inertLine|clip)\($|(?:reply|error): $|LegionError\('\w+', $/;
const PRESENCE = /^\s*[!=]== undefined/;

/**
 * The MCP, A2A and ACP servers answer programs (their clients, an editor), and `headless/` builds `legion run`'s JSON
 * events for programs: none writes a reply to a terminal (what they say on stderr still goes through the writers).
 */
const NOT_A_TERMINAL = /^(?:mcp-serve|a2a-serve|acp|headless)\//;

describe('every terminal writer goes through the one sanitizer', () => {
  it("a turn's reply or error reaches a terminal only made inert", () => {
    const found: string[] = [];
    for (const path of sources(SOURCE)) {
      const file = relative(SOURCE, path).split('\\').join('/');
      if (NOT_A_TERMINAL.test(file)) continue;
      const text = readFileSync(path, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of text.matchAll(OUTSIDE_TEXT)) {
        const before = text.slice(Math.max(0, match.index - 40), match.index);
        const after = text.slice(match.index + match[0].length, match.index + match[0].length + 20);
        if (INERT_PLACES.test(before) || PRESENCE.test(after)) continue;
        found.push(`${file}:${text.slice(0, match.index).split('\n').length}: ${match[0]}`);
      }
    }
    expect(found, 'pass it through inert() (render/terminal-text.ts) where it is printed').toEqual([]);
  });

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
