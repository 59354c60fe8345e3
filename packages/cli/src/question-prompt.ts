import { createInterface } from 'node:readline/promises';
import { AnsweredElsewhereError, type UserSurface } from '@legion-collective/core';
import { inert, inertLine, terminalOut } from './render/terminal-text.js';

/**
 * The terminal as a surface that answers agents' questions (`legion run` on a terminal): the
 * question, who asks and who waits on it, then one line of answer. An empty line asks again: an
 * empty answer tells the agent nothing. Answered on another surface meanwhile (a browser of
 * `legion serve`, `legion answer`), the prompt says so and gives way.
 */
export function questionPrompt(terminal: { input: NodeJS.ReadStream; output: NodeJS.WriteStream }): NonNullable<UserSurface['ask']> {
  const out = terminalOut(terminal.output);
  const style = out.style;
  return async (question, { signal }) => {
    const readline = createInterface({ input: terminal.input, output: terminal.output });
    try {
      const waiting = question.chain.length > 1 ? style.dim(` (waiting on it: ${question.chain.map(inertLine).join(' → ')})`) : '';
      out.write(
        `\n${style.yellow('question')} ${style.bold(inertLine(question.from))} asks ${style.bold(inertLine(question.user.id))}${waiting}\n${inert(question.text)}\n`,
      );
      for (;;) {
        const answer = (await readline.question('  your answer: ', { signal })).trim();
        if (answer !== '') return answer;
        out.write(`  ${style.dim(`type the answer ${inertLine(question.from)} gets, then Enter (Ctrl+C stops the run)`)}\n`);
      }
    } catch (error) {
      if (signal.reason instanceof AnsweredElsewhereError)
        out.write(`\n  ${style.dim(`answered on ${inertLine(signal.reason.medium)}`)}\n`);
      throw error;
    } finally {
      readline.close();
    }
  };
}

/**
 * Runs the terminal's prompts one at a time: a question and an approval of two parallel delegates
 * would otherwise read the same typed line.
 */
export function oneAtATime(): <T>(prompt: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(prompt: () => Promise<T>): Promise<T> => {
    const next = last.then(prompt, prompt);
    last = next.catch(() => undefined);
    return next;
  };
}
