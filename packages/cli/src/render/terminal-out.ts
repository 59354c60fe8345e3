import { styleFor, type Style } from './style.js';
import { terminalSafe } from './terminal-text.js';

/**
 * The one way text reaches a terminal outside the REPL's screen: `write`
 * passes everything through `terminalSafe`, so only Legion's own colours go
 * out as escape sequences. `json` is for the JSON outputs (`--json`,
 * `--output json`, stream-json), which stay exact: JSON.stringify escapes every
 * C0 control, and what reads them is a program, not a terminal.
 * `terminal-writers.test.ts` fails the build when a writer goes around this.
 */
export interface TerminalOut {
  readonly stream: NodeJS.WriteStream;
  readonly style: Style;
  write(text: string): void;
  /** One JSON document and a new line; `indent` pretty-prints it. */
  json(value: unknown, indent?: number): void;
}

export function terminalOut(stream: NodeJS.WriteStream): TerminalOut {
  return {
    stream,
    style: styleFor(stream),
    // The stream's write is looked up at each call: the REPL's screen replaces stderr's while it runs.
    write: (text) => void stream.write(terminalSafe(text)),
    json: (value, indent) => void stream.write(`${JSON.stringify(value, null, indent)}\n`),
  };
}

export const stdout = terminalOut(process.stdout);
export const stderr = terminalOut(process.stderr);
