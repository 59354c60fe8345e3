import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { purposeOf } from '../../child-processes/process-records.js';
import { redactSecrets } from '../../redact.js';
import { describeProcessState, type ProcessRegistry, type ProcessStatus } from './ProcessRegistry.js';
import { resolveWorkingFolder } from './working-folder.js';

const MAX_WAIT_MS = 60_000;

/** process_start, process_poll, process_stop and process_list over one registry. */
export function createProcessTools(registry: ProcessRegistry): Tool[] {
  const unknown = (id: string): { status: 'error'; error: string } => {
    const known = registry.list().map((entry) => entry.process.id);
    return { status: 'error', error: `No background process "${id}". Known: ${known.join(', ') || '(none)'}.` };
  };
  return [
    defineTool({
      name: 'process_start',
      description:
        'Start a long-running shell command in the background (a dev server, a watcher, a long build) with /bin/sh -c, and return its id at once. ' +
        'Read its output with process_poll and end it with process_stop; it runs until stopped or until Legion exits. ' +
        'A large output between polls is stored as an artifact and previewed (read it with artifact_read). For a command that finishes quickly use shell_run.',
      input: () => z.object({
        command: z.string().min(1).describe('The command line, as typed in a POSIX shell.'),
        cwd: z.string().min(1).optional().describe('Folder to run in, relative to the workspace root (default: the root).'),
      }),
      effect: 'shell',
      commandArguments: ['command'],
      async execute(input, context) {
        const cwd = resolveWorkingFolder(context.workspaceRoot, input.cwd);
        if (!cwd.ok) return { status: 'error', error: cwd.error };
        const started = registry.start({ command: input.command, cwd: cwd.real, displayCwd: cwd.relative, owner: context.callerId, purpose: purposeOf(context) });
        if ('error' in started) return { status: 'error', error: started.error };
        return { status: 'success', data: `Started ${started.id} (pid ${started.pid ?? '?'}) in ${started.cwd}/. Poll it with process_poll { "id": "${started.id}" }.` };
      },
    }),
    defineTool({
      name: 'process_poll',
      description:
        'Get the new output of a background process since the last poll, and whether it is still running (or its exit code). ' +
        `Set wait_ms (up to ${MAX_WAIT_MS}) to wait for new output or the exit instead of polling repeatedly.`,
      input: () => z.object({
        id: z.string().min(1).describe('The id process_start returned (e.g. "proc-1").'),
        wait_ms: z.number().int().nonnegative().max(MAX_WAIT_MS).optional().describe('Wait up to this long for output when there is none yet.'),
      }),
      // Reads what a process already started printed: starting it was the act that needed approval.
      effect: 'read',
      timeoutMs: MAX_WAIT_MS + 10_000,
      async execute(input, context) {
        const status = await registry.poll(input.id, { waitMs: input.wait_ms ?? 0, signal: context.signal });
        return status ? { status: 'success', data: render(status) } : unknown(input.id);
      },
    }),
    defineTool({
      name: 'process_stop',
      description: 'Stop a background process and everything it started (SIGTERM, then SIGKILL after a grace period). Returns its last output.',
      input: () => z.object({ id: z.string().min(1).describe('The id process_start returned.') }),
      effect: 'shell',
      async execute(input) {
        const status = await registry.stop(input.id);
        return status ? { status: 'success', data: `Stopped ${status.process.id}: ${render(status)}` } : unknown(input.id);
      },
    }),
    defineTool({
      name: 'process_list',
      description: 'List the background processes started with process_start: id, state, who started it, and the command.',
      input: () => z.object({}),
      concurrent: true,
      effect: 'read',
      async execute() {
        const entries = registry.list();
        if (entries.length === 0) return { status: 'success', data: 'No background processes.' };
        const lines = entries.map((entry) => `${entry.process.id}  ${describeProcessState(entry)}  by ${entry.process.owner}  in ${entry.process.cwd}/  $ ${redactSecrets(entry.process.command, registry.env)}`);
        return { status: 'success', data: lines.join('\n') };
      },
    }),
  ];
}

function render(status: ProcessStatus): string {
  return `${describeProcessState(status)}\n${status.output}`;
}

