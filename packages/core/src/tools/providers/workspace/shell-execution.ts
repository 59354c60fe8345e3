import { resolve } from 'node:path';
import type { ToolResult } from '../../tool.js';
import type { GroupPurpose } from '../../child-processes/process-records.js';
import { commandEnvironment } from '../../child-env.js';
import { sandboxFor, type SandboxSettings } from '../../child-processes/sandbox.js';
import { expandArgv } from './argv-template.js';
import { fillTemplate, templateParts, type PlaceholderScope } from './placeholders.js';
import { runArgv, type ArgvOutcome } from './run-argv.js';
import type { ShellExecution } from './workspace-tool-schema.js';

export interface ShellCall {
  toolName: string;
  execution: ShellExecution;
  scope: PlaceholderScope;
  workspaceRoot: string;
  signal: AbortSignal;
  timeoutMs?: number | undefined;
  /** Environment the command runs with; default: the scope's without Legion's keys. */
  commandEnv?: NodeJS.ProcessEnv | undefined;
  /** Parameters whose values may start with "-". */
  optionLike?: ReadonlySet<string> | undefined;
  /** The call it runs for, recorded so that a crash's leftovers can be ended. */
  purpose?: GroupPurpose | undefined;
  /** The sandbox settings it runs with (its root: `workspaceRoot`, the context's). */
  sandbox: SandboxSettings;
}

/** Runs a `shell` workspace tool: its argv template filled in, then spawned without a shell. */
export async function executeShell(call: ShellCall): Promise<ToolResult> {
  const withNul = [...call.execution.command, ...Object.values(call.execution.env ?? {})]
    .flatMap((template) => templateParts(template, call.scope))
    .find((part) => part.kind === 'argument' && holdsNul(part.value));
  // An argv element or environment value is a C string: a NUL would end it early, and spawn throws on one.
  if (withNul?.kind === 'argument')
    return {
      status: 'error',
      error: `${call.toolName}: "${withNul.name}" contains a NUL character, which no program argument or environment value can hold; nothing was run.`,
    };
  const expanded = expandArgv(call.execution.command, call.scope, { toolName: call.toolName, optionLike: call.optionLike });
  if (!expanded.ok) return { status: 'error', error: expanded.error };
  const [program, ...args] = expanded.argv;
  if (!program)
    return { status: 'error', error: `${call.toolName}: the command's program ("${call.execution.command[0]}") came out empty.` };
  const env: NodeJS.ProcessEnv = { ...(call.commandEnv ?? commandEnvironment(call.scope.env)) };
  for (const [name, template] of Object.entries(call.execution.env ?? {})) env[name] = fillTemplate(template, call.scope);
  const cwd = resolve(call.workspaceRoot, call.execution.cwd ?? '.');
  const confined = sandboxFor(call.sandbox, { root: call.workspaceRoot, cwd, env });
  if (!confined.ok) return { status: 'error', error: `${call.toolName}: ${confined.error}` };
  const outcome = await runArgv({
    program,
    args,
    cwd,
    env,
    sandbox: confined.profile,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
    purpose: call.purpose,
  });
  return toResult(call.toolName, outcome, call.timeoutMs);
}

function toResult(toolName: string, outcome: ArgvOutcome, timeoutMs: number | undefined): ToolResult {
  if (outcome.startError) return { status: 'error', error: `${toolName}: ${outcome.startError}.` };
  const output = describeOutput(outcome);
  if (outcome.stopped === 'timeout')
    return { status: 'error', error: `${toolName} timed out after ${timeoutMs} ms and was stopped.${output ? `\n${output}` : ''}` };
  if (outcome.stopped === 'aborted')
    return { status: 'error', error: `${toolName} was cancelled and stopped.${output ? `\n${output}` : ''}` };
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

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  return Array.isArray(value) && value.some(holdsNul);
}
