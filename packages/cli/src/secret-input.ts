import { stderr } from './render/terminal-text.js';

/**
 * Reads a secret typed on the terminal without showing it (nor a `*` per character, which would
 * tell its length): the terminal is put in raw mode so nothing is echoed. Enter ends it; Ctrl-C or
 * Ctrl-D at the start give `null`; Backspace erases. The prompt goes to stderr.
 */
export function readSecret(prompt: string): Promise<string | null> {
  const input = process.stdin;
  stderr.write(prompt);
  return new Promise((resolve) => {
    let typed = '';
    const finish = (value: string | null): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      for (const character of chunk.toString('utf8')) {
        if (character === '\r' || character === '\n') return finish(typed);
        if (character === '\u0003') return finish(null);
        if (character === '\u0004') {
          if (typed === '') return finish(null);
          continue;
        }
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1);
        else if (character >= ' ') typed += character;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

/** All of standard input, trimmed (a key piped in, or a here-string, ends with a newline). */
export async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}
