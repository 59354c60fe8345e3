import { z } from 'zod';
import { commandEnvironment } from '../../child-env.js';
import { redactSecrets } from '../../redact.js';
import { defineTool, type Tool } from '../../tool.js';
import { purposeOf } from '../../child-processes/process-records.js';
import { DEFAULT_SANDBOX_SETTINGS, sandboxFor, sandboxUse } from '../../child-processes/sandbox.js';
import { describeExit, ShellChild } from './shell-child.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_OUTPUT_LIMIT_BYTES, SANDBOX_NOTE, type ShellOptions } from './shell-options.js';
import { formatStreams, renderCapture } from './shell-output.js';
import { resolveWorkingFolder } from './working-folder.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

/** Runs one shell command to completion and reports its exit code and output. */
export function createShellRunTool(options: ShellOptions = {}): Tool {
  const env = options.env ?? commandEnvironment(process.env);
  const limitBytes = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const sandbox = options.sandbox ?? (() => DEFAULT_SANDBOX_SETTINGS);
  return defineTool({
    name: 'shell_run',
    description:
      'Run a shell command with /bin/sh -c in the workspace (or a folder of it, cwd) and wait for it to finish. ' +
      'Returns the exit code, stdout and stderr. ' +
      'A large output is stored whole as an artifact and you get its first and last lines (read the rest with artifact_read); still, filter noisy output (grep, tail). ' +
      `The command is killed with everything it started after timeout_ms (default ${DEFAULT_TIMEOUT_MS / 1000} s, at most ${MAX_TIMEOUT_MS / 1000} s). ` +
      'stdin is closed: use non-interactive flags (-y, --no-pager). Processes it leaves in the background are killed when it exits; ' +
      'for servers and watchers use process_start. Secret environment values are redacted from the output. ' +
      SANDBOX_NOTE,
    input: () =>
      z.object({
        command: z.string().min(1).describe('The command line, as typed in a POSIX shell.'),
        cwd: z.string().min(1).optional().describe('Folder to run in, relative to the workspace root (default: the root).'),
        timeout_ms: z
          .number()
          .int()
          .positive()
          .max(MAX_TIMEOUT_MS)
          .optional()
          .describe(`Kill the command after this long (default ${DEFAULT_TIMEOUT_MS}).`),
      }),
    effect: 'shell',
    commandArguments: ['command'],
    sandbox: () => sandboxUse(sandbox()),
    // The command's own timeout rules; the executor's default must not cut a longer one short.
    timeoutMs: MAX_TIMEOUT_MS + 30_000,
    async execute(input, context) {
      const cwd = resolveWorkingFolder(context.workspaceRoot, input.cwd);
      if (!cwd.ok) return { status: 'error', error: cwd.error };
      if (context.signal.aborted) return { status: 'error', error: 'Cancelled before the command started.' };
      const confined = sandboxFor(sandbox(), { root: context.workspaceRoot ?? cwd.real, cwd: cwd.real, env });
      if (!confined.ok) return { status: 'error', error: confined.error };

      const child = new ShellChild(input.command, {
        cwd: cwd.real,
        env,
        limitBytes,
        purpose: purposeOf(context),
        sandbox: confined.profile,
      });
      const timeoutMs = input.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      let stoppedBy: 'timeout' | 'cancel' | undefined;
      const stop = (reason: 'timeout' | 'cancel'): void => {
        stoppedBy ??= reason;
        void child.terminate(graceMs);
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs);
      const onAbort = (): void => stop('cancel');
      context.signal.addEventListener('abort', onAbort, { once: true });
      let exit;
      try {
        exit = await child.exited;
      } finally {
        clearTimeout(timer);
        context.signal.removeEventListener('abort', onAbort);
      }

      const redact = (text: string): string => redactSecrets(text, env);
      const output = formatStreams(renderCapture(child.stdout, redact), renderCapture(child.stderr, redact));
      if (stoppedBy === 'timeout')
        return {
          status: 'error',
          error: `Timed out after ${timeoutMs} ms; the command and its children were killed (${describeExit(exit)}).\n${output}`,
        };
      if (stoppedBy === 'cancel')
        return { status: 'error', error: `Cancelled; the command and its children were killed (${describeExit(exit)}).\n${output}` };
      const status = describeExit(exit);
      if (exit.code === 0) return { status: 'success', data: `${status}\n${output}` };
      return { status: 'error', error: `${status}\n${output}` };
    },
  });
}
