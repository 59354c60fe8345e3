import { resolve } from 'node:path';
import type { ToolResult } from '../../tool.js';
import { argumentText, fillTemplate, resolvePlaceholder, wholePlaceholder, type PlaceholderScope } from './placeholders.js';
import { runArgv, type ArgvOutcome } from './run-argv.js';
import type { ShellExecution } from './workspace-tool-schema.js';

export interface ShellCall {
  toolName: string;
  execution: ShellExecution;
  scope: PlaceholderScope;
  workspaceRoot: string;
  signal: AbortSignal;
  timeoutMs?: number | undefined;
}

/** Runs a `shell` workspace tool: its argv template filled in, then spawned without a shell. */
export async function executeShell(call: ShellCall): Promise<ToolResult> {
  const argv = expandArgv(call.execution.command, call.scope);
  const [program, ...args] = argv;
  if (!program) return { status: 'error', error: `${call.toolName}: the command's program ("${call.execution.command[0]}") came out empty.` };
  const env: NodeJS.ProcessEnv = { ...call.scope.env };
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
 */
export function expandArgv(command: readonly string[], scope: PlaceholderScope): string[] {
  const argv: string[] = [];
  for (const part of command) {
    const whole = wholePlaceholder(part);
    if (whole === undefined) {
      argv.push(fillTemplate(part, scope));
      continue;
    }
    const resolved = resolvePlaceholder(whole, scope);
    if (resolved.source === 'missing') continue;
    if (resolved.source === 'argument' && Array.isArray(resolved.value)) argv.push(...resolved.value.map(argumentText));
    else argv.push(resolved.source === 'argument' ? argumentText(resolved.value) : resolved.value);
  }
  return argv;
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
