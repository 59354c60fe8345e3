import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion } from './legion-process.test-support.js';
import { useWorkspace } from './workspace.test-support.js';

// The built binary, its coordinator on the real Anthropic SDK against aimock:
// a model that names a FIFO must get an error back, and the run must end.
// A blocking open would freeze the process for good (no timeout, no Ctrl-C),
// so the process gets a bound: killed at it, the run fails instead of hanging the suite.
const PROCESS_LIMIT_MS = 40_000;

describe('legion run when a model reads a FIFO', () => {
  const workspace = useWorkspace('legion-fifo-');
  const { mock, env, useModel, toolResultSent } = workspace;
  const writers: ChildProcess[] = [];
  afterEach(() => {
    for (const writer of writers.splice(0)) writer.kill('SIGKILL');
  });

  it(
    'file_read and file_grep of a FIFO answer with an error, and the run completes',
    async () => {
      const made = spawnSync('mkfifo', [join(workspace.dir, 'pipe.txt')]);
      expect(made.status, made.stderr.toString()).toBe(0);
      // A writer for the FIFO's other end: never needed by code that refuses the FIFO; code that opens it blocking gets unstuck once.
      writeFileSync(join(workspace.dir, 'writer-input.txt'), 'secret from the pipe\n');
      const writer = spawn(
        'dd',
        [`if=${join(workspace.dir, 'writer-input.txt')}`, `of=${join(workspace.dir, 'pipe.txt')}`, 'conv=nocreat,notrunc', 'status=none'],
        { stdio: 'ignore' },
      );
      writers.push(writer);
      useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
      const message = 'Read pipe.txt';
      mock.on(
        { model: 'claude-test', userMessage: message, hasToolResult: false },
        {
          toolCalls: [
            { id: 'toolu_read', name: 'file_read', arguments: JSON.stringify({ path: 'pipe.txt' }) },
            { id: 'toolu_grep', name: 'file_grep', arguments: JSON.stringify({ pattern: 'secret', path: 'pipe.txt' }) },
          ],
        },
      );
      mock.on({ model: 'claude-test', userMessage: message, hasToolResult: true }, { content: 'pipe.txt is not a file I can read.' });

      const run = await runLegion(['run', '--approve', 'auto', message], {
        cwd: workspace.dir,
        env: { ...process.env, ...env() },
        timeoutMs: PROCESS_LIMIT_MS,
      });

      expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('pipe.txt is not a file I can read.');
      expect(toolResultSent('toolu_read')).toContain(
        '"pipe.txt" is a FIFO (named pipe), not a regular file; file tools read only regular files.',
      );
      expect(toolResultSent('toolu_grep')).toContain(
        '"pipe.txt" is a FIFO (named pipe), not a regular file; file_grep searches only regular files.',
      );
    },
    PROCESS_LIMIT_MS + 20_000,
  );

  it(
    "a FIFO among Legion's own files (a participant file, a workspace tool file) is reported, not waited on",
    async () => {
      for (const file of ['.legion/collective/participants/ghost.json', '.legion/tools/probe.json']) {
        const made = spawnSync('mkfifo', [join(workspace.dir, file)]);
        expect(made.status, made.stderr.toString()).toBe(0);
      }
      useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
      mock.on({ model: 'claude-test', userMessage: 'Hello' }, { content: 'Hello back.' });

      const legion = () =>
        runLegion(['run', 'Hello'], { cwd: workspace.dir, env: { ...process.env, ...env() }, timeoutMs: PROCESS_LIMIT_MS });

      // A participant file that cannot be read stops the run at once, as a broken one does, naming it.
      const refused = await legion();
      expect(refused.status, `exit ${refused.status}\nstdout: ${refused.stdout}\nstderr: ${refused.stderr}`).toBe(1);
      expect(refused.stderr).toContain('".legion/collective/participants/ghost.json" is a FIFO (named pipe), not a regular file');

      // A workspace tool file that cannot be read is that tool's problem: the run goes on without it.
      unlinkSync(join(workspace.dir, '.legion/collective/participants/ghost.json'));
      const run = await legion();
      expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('Hello back.');
      expect(run.stderr).toContain('probe.json');
      expect(run.stderr).toContain('is a FIFO (named pipe), not a regular file');
    },
    PROCESS_LIMIT_MS + 20_000,
  );
});
