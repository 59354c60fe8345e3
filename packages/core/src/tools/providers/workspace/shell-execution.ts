import { resolve } from 'node:path';
import type { ToolResult } from '../../tool.js';
import { argumentText, fillTemplate, placeholdersIn, resolvePlaceholder, wholePlaceholder, type PlaceholderScope } from './placeholders.js';
import { runArgv, type ArgvOutcome } from './run-argv.js';
import type { ShellExecution } from './workspace-tool-schema.js';

export interface ShellCall {
  toolName: string;
  execution: ShellExecution;
  scope: PlaceholderScope;
  /** What the command's environment starts from; `execution.env` adds to it. */
  commandEnv: NodeJS.ProcessEnv;
  workspaceRoot: string;
  signal: AbortSignal;
  timeoutMs?: number | undefined;
}

/** Runs a `shell` workspace tool: its argv template filled in, then spawned without a shell. */
export async function executeShell(call: ShellCall): Promise<ToolResult> {
  const expanded = expandArgv(call.execution.command, call.scope, call.execution.optionArguments);
  if (!expanded.ok) return { status: 'error', error: `${call.toolName}: ${expanded.error}.` };
  const [program, ...args] = expanded.argv;
  if (!program) return { status: 'error', error: `${call.toolName}: the command's program ("${call.execution.command[0]}") came out empty.` };
  const env: NodeJS.ProcessEnv = { ...call.commandEnv };
  for (const [name, template] of Object.entries(call.execution.env ?? {})) env[name] = fillTemplate(template, call.scope);
  const outcome = await runArgv({
    program,
    args,
    cwd: resolve(call.workspaceRoot, call.execution.cwd ?? '.'),
    env,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
  });
  return toResult(call.toolName, outcome, call.timeoutMs);
}

/**
 * Fills each argv element. An element that is exactly one placeholder is
 * dropped when the argument is missing (an optional flag value) and spread
 * into several arguments when the value is an array (`["git", "add", "${paths}"]`).
 *
 * A model's value that would start an argument with `-` is refused: the program
 * would read it as an option (`--output=/etc/x`). It is allowed after a literal
 * `--` in the command, or for parameters the tool file lists in `optionArguments`.
 */
export function expandArgv(command: readonly string[], scope: PlaceholderScope, optionArguments: readonly string[] = []): { ok: true; argv: string[] } | { ok: false; error: string } {
  const argv: string[] = [];
  let afterSeparator = false;
  for (const part of command) {
    const whole = wholePlaceholder(part);
    if (whole === undefined) {
      const filled = fillTemplate(part, scope);
      const names = placeholdersIn(part).filter((name) => !name.startsWith('env:') && name in scope.input);
      if (!afterSeparator && !part.startsWith('-') && filled.startsWith('-') && names.some((name) => !optionArguments.includes(name))) {
        return { ok: false, error: optionRefusal(names.join(', '), filled) };
      }
      if (part === '--') afterSeparator = true;
      argv.push(filled);
      continue;
    }
    const resolved = resolvePlaceholder(whole, scope);
    if (resolved.source === 'missing') continue;
    const values = resolved.source === 'argument' ? (Array.isArray(resolved.value) ? resolved.value.map(argumentText) : [argumentText(resolved.value)]) : [resolved.value];
    if (resolved.source === 'argument' && whole in scope.input && !afterSeparator && !optionArguments.includes(whole)) {
      const optionLike = values.find((value) => value.startsWith('-'));
      if (optionLike !== undefined) return { ok: false, error: optionRefusal(whole, optionLike) };
    }
    argv.push(...values);
  }
  return { ok: true, argv };
}

function optionRefusal(name: string, value: string): string {
  return (
    `the value of "${name}" (${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}) starts with "-", so the program would take it as an option. ` +
    'Give a value that does not start with "-" (for a file, prefix it with "./"); a tool that means to accept options lists the parameter in execution.optionArguments'
  );
}

function toResult(toolName: string, outcome: ArgvOutcome, timeoutMs: number | undefined): ToolResult {
  if (outcome.startError) return { status: 'error', error: `${toolName}: ${outcome.startError}.` };
  const output = describeOutput(outcome);
  if (outcome.stopped === 'timeout') return { status: 'error', error: `${toolName} timed out after ${timeoutMs} ms and was stopped.${output ? `\n${output}` : ''}` };
  if (outcome.stopped === 'aborted') return { status: 'error', error: `${toolName} was cancelled and stopped.${output ? `\n${output}` : ''}` };
  if (outcome.exitCode === 0) return { status: 'success', data: output || '(no output)' };
  const ending = outcome.exitCode === null ? `was killed by ${outcome.exitSignal}` : `exited with code ${outcome.exitCode}`;
  return { status: 'error', error: `${toolName}: the command ${ending}.${output ? `\n${output}` : ''}` };
}

function describeOutput(outcome: ArgvOutcome): string {
  const stdout = outcome.stdout.trimEnd();
  const stderr = outcome.stderr.trimEnd();
  if (!stderr) return stdout;
  return stdout ? `${stdout}\n[stderr]\n${stderr}` : `[stderr]\n${stderr}`;
}
