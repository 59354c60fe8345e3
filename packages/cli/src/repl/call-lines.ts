import type { ToolResultBlock, ToolUseBlock } from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { clip, formatDuration, keyArgument, outcomeOf } from './format.js';

const style = styleFor(process.stdout);

/** A finished tool call, kept so the user can expand the last one. */
export interface FinishedCall {
  participantId: string;
  toolUse: ToolUseBlock;
  result: ToolResultBlock;
  durationMs: number;
}

/** Without a margin (the caller gives it its depth's): `✓ coordinator → developer  "Create src/a.ts"  2.1 s  replied` or `✓ developer  file_read  src/a.ts  4 ms  ok, 12 lines`. */
export function describeCall(call: FinishedCall): string {
  const outcome = outcomeOf(call.result);
  const mark = outcome.ok ? style.green('✓') : style.red('✗');
  const input = call.toolUse.input as Record<string, unknown> | null;
  const duration = style.dim(formatDuration(call.durationMs));
  if (call.toolUse.name === 'communicate' && input && typeof input.to === 'string') {
    const message = typeof input.message === 'string' ? clip(input.message, 50) : '';
    return `${mark} ${style.participant(call.participantId, inertLine(call.participantId))} → ${style.bold(style.participant(input.to, inertLine(input.to)))}  ${style.dim(`"${message}"`)}  ${duration}  ${outcome.ok ? 'replied' : style.red(outcome.text)}`;
  }
  return `${mark} ${style.participant(call.participantId, inertLine(call.participantId))}  ${style.bold(inertLine(call.toolUse.name))}  ${keyArgument(call.toolUse)}  ${duration}  ${outcome.ok ? style.dim(outcome.text) : style.red(outcome.text)}`;
}

/** A finished call whole, as Ctrl-O prints it: its line, its input and its output (to 200 lines). */
export function describeCallWhole(call: FinishedCall): string {
  const lines = call.result.content.split('\n');
  return [
    describeCall(call),
    style.dim('  input:'),
    ...JSON.stringify(call.toolUse.input, null, 2)
      .split('\n')
      .map((line) => `    ${inertLine(line)}`),
    style.dim(`  ${call.result.isError ? 'error' : 'output'}:`),
    ...lines.slice(0, 200).map((line) => `    ${inert(line)}`),
    ...(lines.length > 200 ? [style.dim(`    … ${lines.length - 200} more lines`)] : []),
  ].join('\n');
}
