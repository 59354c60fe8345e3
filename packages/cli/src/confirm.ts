import { createInterface } from 'node:readline/promises';

/**
 * Asks a yes/no question on the terminal (stderr, so stdout stays for data).
 * Only meaningful when stdin is a TTY; callers skip it otherwise. Ctrl-D is "no".
 */
export async function confirm(question: string, options: { defaultYes?: boolean } = {}): Promise<boolean> {
  const answer = await ask(`${question} ${options.defaultYes ? '[Y/n]' : '[y/N]'} `);
  if (answer === null) return false;
  if (answer === '') return options.defaultYes === true;
  return /^y(es)?$/i.test(answer);
}

/** One line typed on the terminal, trimmed; `null` when the input ends (Ctrl-D) first. */
export async function ask(question: string): Promise<string | null> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const closed = new Promise<null>((resolve) => prompt.once('close', () => resolve(null)));
  try {
    return await Promise.race([prompt.question(question).then((line) => line.trim()), closed]);
  } finally {
    prompt.close();
  }
}
