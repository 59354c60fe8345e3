import { z } from 'zod';
import { defineTool, type Tool, type ToolContext } from '../../tool.js';
import { purposeOf } from '../../child-processes/process-records.js';
import { sandboxFor, sandboxUse } from '../../child-processes/sandbox.js';
import { SANDBOX_NOTE } from './shell-options.js';
import { redactSecrets } from '../../redact.js';
import { describeProcessState, type BackgroundProcess, type ProcessRegistry, type ProcessStatus } from './ProcessRegistry.js';
import { resolveWorkingFolder } from './working-folder.js';

const MAX_WAIT_MS = 60_000;

/** Who may see, poll and stop every background process: the human; anyone else only what it started. */
export interface ProcessScope {
  seesAll(callerId: string): boolean;
}

/**
 * process_start, process_poll, process_stop and process_list over one registry.
 * A caller sees, polls and stops only the processes it started in its session
 * (one agent may not end another's server, or read its command line and
 * output); the human (`scope.seesAll`, default nobody) sees them all.
 */
export function createProcessTools(registry: ProcessRegistry, scope: ProcessScope = { seesAll: () => false }): Tool[] {
  const mine = (process: BackgroundProcess, context: ToolContext): boolean =>
    scope.seesAll(context.callerId) || (process.owner === context.callerId && process.sessionId === context.conversation.sessionId);
  const visible = (context: ToolContext) => registry.list().filter((entry) => mine(entry.process, context));
  /** An id the caller may use, or the error that says why not (another's process: no command line, no owner's output). */
  const check = (id: string, context: ToolContext): { status: 'error'; error: string } | undefined => {
    const entry = registry.list().find((candidate) => candidate.process.id === id);
    if (entry && mine(entry.process, context)) return undefined;
    if (entry)
      return {
        status: 'error',
        error: `${id} was started by another participant (or in another session): only it and the user may poll or stop it. Your own: ${
          visible(context)
            .map((own) => own.process.id)
            .join(', ') || '(none)'
        }.`,
      };
    const known = visible(context).map((own) => own.process.id);
    return { status: 'error', error: `No background process "${id}". Yours: ${known.join(', ') || '(none)'}.` };
  };
  return [
    defineTool({
      name: 'process_start',
      description:
        'Start a long-running shell command in the background (a dev server, a watcher, a long build) with /bin/sh -c, and return its id at once. ' +
        'Read its output with process_poll and end it with process_stop; it runs until stopped or until Legion exits. ' +
        'A large output between polls is stored as an artifact and previewed (read it with artifact_read). For a command that finishes quickly use shell_run. ' +
        SANDBOX_NOTE +
        ' Without a network, a server it starts is reachable only from inside the same command.',
      input: () =>
        z.object({
          command: z.string().min(1).describe('The command line, as typed in a POSIX shell.'),
          cwd: z.string().min(1).optional().describe('Folder to run in, relative to the workspace root (default: the root).'),
        }),
      effect: 'shell',
      commandArguments: ['command'],
      sandbox: () => sandboxUse(registry.sandbox()),
      async execute(input, context) {
        const cwd = resolveWorkingFolder(context.workspaceRoot, input.cwd);
        if (!cwd.ok) return { status: 'error', error: cwd.error };
        const confined = sandboxFor(registry.sandbox(), { root: context.workspaceRoot ?? cwd.real, cwd: cwd.real, env: registry.env });
        if (!confined.ok) return { status: 'error', error: confined.error };
        const started = registry.start({
          sandbox: confined.profile,
          command: input.command,
          cwd: cwd.real,
          displayCwd: cwd.relative,
          owner: context.callerId,
          sessionId: context.conversation.sessionId,
          purpose: purposeOf(context),
        });
        if ('error' in started) return { status: 'error', error: started.error };
        return {
          status: 'success',
          data: `Started ${started.id} (pid ${started.pid ?? '?'}) in ${started.cwd}/. Poll it with process_poll { "id": "${started.id}" }.`,
        };
      },
    }),
    defineTool({
      name: 'process_poll',
      description:
        'Get the new output of a background process since the last poll, and whether it is still running (or its exit code). ' +
        `Set wait_ms (up to ${MAX_WAIT_MS}) to wait for new output or the exit instead of polling repeatedly.`,
      input: () =>
        z.object({
          id: z.string().min(1).describe('The id process_start returned (e.g. "proc-1").'),
          wait_ms: z
            .number()
            .int()
            .nonnegative()
            .max(MAX_WAIT_MS)
            .optional()
            .describe('Wait up to this long for output when there is none yet.'),
        }),
      // Reads what a process already started printed: starting it was the act that needed approval.
      effect: 'read',
      timeoutMs: MAX_WAIT_MS + 10_000,
      async execute(input, context) {
        const refused = check(input.id, context);
        if (refused) return refused;
        const status = await registry.poll(input.id, { waitMs: input.wait_ms ?? 0, signal: context.signal });
        return status
          ? { status: 'success', data: render(status) }
          : (check(input.id, context) ?? { status: 'error', error: `${input.id} was forgotten meanwhile.` });
      },
    }),
    defineTool({
      name: 'process_stop',
      description:
        'Stop a background process and everything it started (SIGTERM, then SIGKILL after a grace period). Returns its last output.',
      input: () => z.object({ id: z.string().min(1).describe('The id process_start returned.') }),
      effect: 'shell',
      async execute(input, context) {
        const refused = check(input.id, context);
        if (refused) return refused;
        const status = await registry.stop(input.id);
        return status
          ? { status: 'success', data: `Stopped ${status.process.id}: ${render(status)}` }
          : (check(input.id, context) ?? { status: 'error', error: `${input.id} was stopped meanwhile.` });
      },
    }),
    defineTool({
      name: 'process_list',
      description:
        'List the background processes you started with process_start in this session: id, state, who started it, and the command.',
      input: () => z.object({}),
      concurrent: true,
      effect: 'read',
      async execute(_input, context) {
        const entries = visible(context);
        if (entries.length === 0) return { status: 'success', data: 'No background processes.' };
        const lines = entries.map(
          (entry) =>
            `${entry.process.id}  ${describeProcessState(entry)}  by ${entry.process.owner}  in ${entry.process.cwd}/  $ ${redactSecrets(entry.process.command, registry.env)}`,
        );
        return { status: 'success', data: lines.join('\n') };
      },
    }),
  ];
}

function render(status: ProcessStatus): string {
  return `${describeProcessState(status)}\n${status.output}`;
}
