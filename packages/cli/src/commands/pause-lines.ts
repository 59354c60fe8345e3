import type { TurnResult } from '@legion-collective/core';
import type { Style } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { describe } from './approvals.js';

type Paused = Extract<TurnResult, { status: 'paused' }>;

/**
 * What a paused turn waits on and how to answer it, as `legion run`, `legion approve` and `legion
 * answer` say it on stderr: the approvals (with their input), the questions (who asks what), and
 * the one command for each.
 */
export function pauseLines(paused: readonly Paused[], style: Style): string {
  const requests = paused.flatMap((result) => result.requests);
  const questions = paused.flatMap((result) => result.questions ?? []);
  const lines: string[] = [];
  if (requests.length > 0) {
    lines.push('Paused: waiting for approval (it is saved; answer any time):', ...requests.map((view) => `  ${describe(view, style)}`));
    lines.push('Answer with: legion approve ID… [--always | --rule [--pattern GLOB]]  or  legion reject ID… --reason "…"');
  }
  if (questions.length > 0) {
    lines.push(`Paused: waiting for your answer (nobody could be asked; it is saved, answer any time):`);
    for (const question of questions) lines.push(`  ${inertLine(question.id)}  ${inertLine(question.from)} asks ${inertLine(question.user)}: ${inert(question.text)}`);
    lines.push(`Answer with: legion answer ${inertLine(questions[0]!.id)} "…"  (legion questions lists them)`);
  }
  return `${lines.join('\n')}\n`;
}
