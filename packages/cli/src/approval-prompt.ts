import { createInterface } from 'node:readline/promises';
import {
  AnsweredElsewhereError,
  answerOfChoice,
  APPROVAL_CHOICES,
  approvalChoice,
  choiceOfTyped,
  sandboxLine,
  type ApprovalAnswer,
  type ApprovalChoice,
  type ApprovalRules,
  type UserSurface,
} from '@legion-collective/core';
import { approvalChoiceLines } from './render/approval-choices.js';
import { approvalInputLines } from './render/approval-input.js';
import { terminalOut, inert, inertLine } from './render/terminal-text.js';

export type ApproveMode = 'prompt' | 'auto' | 'deny';

/** The medium a terminal user's decisions are recorded with. */
export const TERMINAL_MEDIUM = 'terminal';

/**
 * The terminal as a surface that decides approvals. `auto` and `deny` answer
 * without asking; `prompt` asks on the terminal, and without one gives no
 * surface at all, so the run pauses durably and `legion approve` answers it later.
 */
export function approvalSurface(
  mode: ApproveMode,
  terminal: { interactive: boolean; input: NodeJS.ReadStream; output: NodeJS.WriteStream },
  /** Offers "approve always" (a rule, choice 3) when given: its `patternFor` shows and checks the rule's pattern. */
  rules?: Pick<ApprovalRules, 'patternFor'>,
): UserSurface | undefined {
  if (mode === 'auto')
    return { medium: TERMINAL_MEDIUM, approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' })) };
  if (mode === 'deny') {
    return {
      medium: TERMINAL_MEDIUM,
      approve: async (requests) =>
        requests.map((request) => ({
          id: request.id,
          decision: 'reject',
          reason: 'this run does not allow it (--approve deny); find another way or say what you need',
        })),
    };
  }
  if (!terminal.interactive) return undefined;
  return { medium: TERMINAL_MEDIUM, approve: terminalPrompt(terminal, rules) };
}

function terminalPrompt(
  terminal: { input: NodeJS.ReadStream; output: NodeJS.WriteStream },
  rules: Pick<ApprovalRules, 'patternFor'> | undefined,
): NonNullable<UserSurface['approve']> {
  const out = terminalOut(terminal.output);
  const style = out.style;
  return async (requests, { signal }) => {
    const readline = createInterface({ input: terminal.input, output: terminal.output });
    const answers: ApprovalAnswer[] = [];
    try {
      for (const [index, request] of requests.entries()) {
        // One at a time, as on the REPL's card: "(1 of 2)" when a response made several calls.
        const count = requests.length > 1 ? style.dim(` (${index + 1} of ${requests.length})`) : '';
        // All of the input, one field a line, every character a terminal would act on shown: what is approved is what runs.
        out.write(
          `\n${style.yellow('approval needed')}${count} ${style.bold(inertLine(request.requester))} wants to run ${style.bold(inertLine(request.tool))}\n  ${style.dim(inert(request.reason))}\n${request.sandbox ? `  ${inert(sandboxLine(request.sandbox))}\n` : ''}${approvalInputLines(request.input).join('\n')}\n`,
        );
        const rule = rules?.patternFor(request);
        // Core's one vocabulary: the same numbers, words and order as the REPL's card and every other surface.
        const offered: ApprovalChoice[] = rule ? ['once', 'session', 'always', 'reject'] : ['once', 'session', 'reject'];
        const numbers = APPROVAL_CHOICES.filter((words) => offered.includes(words.choice)).map((words) => words.number);
        out.write(
          `${approvalChoiceLines(style, {
            width: terminal.output.columns,
            ...(rule ? {} : { unavailable: { always: 'not offered here: legion approve ID --rule makes a rule' } }),
          }).join('\n')}\n`,
        );
        const question = `  ${style.cyan(`choose ${numbers.join(', ')}, then Enter:`)} `;
        let answer: ApprovalAnswer | undefined;
        while (!answer) {
          const choice = choiceOfTyped(await readline.question(question, { signal }));
          if (choice === undefined || !offered.includes(choice)) {
            out.write(`  ${style.yellow('answer with the number of a choice:')} ${numbers.join(', ')}\n`);
            continue;
          }
          if (choice === 'reject') {
            const reason = (
              await readline.question(`  ${approvalChoice('reject').label}: reason (shown to the agent; optional), then Enter: `, {
                signal,
              })
            ).trim();
            answer = answerOfChoice({ id: request.id, choice, ...(reason ? { reason } : {}) });
          } else if (choice === 'always' && rule) {
            if (!rule.ok) {
              out.write(`  ${style.yellow('no rule can approve this')}: ${inert(rule.error)}\n`);
              continue;
            }
            const shown = rule.pattern === undefined ? 'every call' : inertLine(rule.pattern);
            const typed = (
              await readline.question(
                `  ${inertLine(request.requester)} may run ${inertLine(request.tool)} without asking when it matches [${shown}]: `,
                { signal },
              )
            ).trim();
            const checked = typed ? rules!.patternFor(request, typed) : rule;
            if (!checked.ok) {
              out.write(`  ${style.yellow('not a usable pattern')}: ${inert(checked.error)}\n`);
              continue;
            }
            answer = answerOfChoice({ id: request.id, choice, ...(typed ? { pattern: typed } : {}) });
          } else answer = answerOfChoice({ id: request.id, choice });
        }
        answers.push(answer);
      }
    } catch (error) {
      // Decided on another surface (a browser, another terminal): say so rather than leave the prompt hanging.
      if (signal.reason instanceof AnsweredElsewhereError)
        out.write(`\n  ${style.dim(`answered on ${inertLine(signal.reason.medium)}`)}\n`);
      throw error;
    } finally {
      readline.close();
    }
    return answers;
  };
}
