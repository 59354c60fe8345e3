import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { LEGION, runLegion } from './legion-process.test-support.js';
import { useWorkspace } from './workspace.test-support.js';

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const BASH_COMPLETION_MISSING = spawnSync('bash', ['--version']).status !== 0 || !existsSync(BASH_COMPLETION);
if (BASH_COMPLETION_MISSING)
  console.warn(
    'shell-completion-cli.test.ts: bash-completion is not installed, so the test in a real bash is skipped (apt-get install -y bash-completion).',
  );

describe('shell completion: legion completion SHELL, and the session ids it offers', () => {
  const workspace = useWorkspace('legion-completion-');
  let ids: string[] = [];

  beforeEach(async () => {
    const legion = Legion.open({ root: workspace.dir });
    // Each in a later millisecond than the one before: sessions active in the same millisecond are ordered by their random id suffix.
    const nextMillisecond = async (): Promise<void> => {
      const start = Date.now();
      while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
    };
    const first = await legion.sessions.create();
    await nextMillisecond();
    const second = await legion.sessions.create();
    await nextMillisecond();
    const third = await legion.sessions.create();
    await (await legion.sessions.get(first.id)).setTitle('the first one');
    await legion.close();
    // Most recently active first.
    ids = [third.id, second.id, first.id];
  });

  const legion = (args: string[], cwd = workspace.dir) => runLegion(args, { cwd, env: { ...process.env, ...workspace.env() } });
  /** The candidates `legion complete -- …` prints (one a line, value TAB description, then `:directive`). */
  const candidates = (stdout: string): string[] =>
    stdout
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith(':'))
      .map((line) => line.split('\t')[0]!);

  it('prints a script for bash, zsh and fish that asks legion complete; the bash one is valid bash', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const run = await legion(['completion', shell]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('legion complete --');
    }
    const bash = await legion(['completion', 'bash']);
    expect(spawnSync('bash', ['-n'], { input: bash.stdout }).status).toBe(0);
    const help = await legion(['--help']);
    expect(help.stdout).toContain('legion completion bash');
    const unknown = await legion(['completion', 'tcsh']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/tcsh.*(zsh|bash|fish)/s);
  });

  it('offers the session ids, most recently active first, for --session and for legion sessions show/rm; none outside a workspace', async () => {
    for (const line of [
      ['run', '--session', ''],
      ['log', '--session', ''],
      ['chat', '--session', ''],
      ['approvals', '--session', ''],
      ['sessions', 'show', ''],
      ['sessions', 'rm', ''],
    ]) {
      const run = await legion(['complete', '--', ...line]);
      expect(run.status, run.stderr).toBe(0);
      expect(candidates(run.stdout), line.join(' ')).toEqual(ids);
    }
    const described = await legion(['complete', '--', 'run', '--session', '']);
    expect(described.stdout).toContain(`${ids[2]}\tthe first one`);
    const prefixed = await legion(['complete', '--', 'run', '--session', ids[2]!.slice(0, -3)]);
    expect(candidates(prefixed.stdout)).toContain(ids[2]);
    const commands = await legion(['complete', '--', 'sess']);
    expect(candidates(commands.stdout)).toEqual(['sessions']);

    const elsewhere = mkdtempSync(join(tmpdir(), 'legion-no-workspace-'));
    try {
      const none = await legion(['complete', '--', 'run', '--session', ''], elsewhere);
      expect(none.status).toBe(0);
      expect(candidates(none.stdout)).toEqual([]);
      expect(none.stderr).toBe('');
      // -w names the workspace, as on the command line being completed.
      const named = await legion(['complete', '--', '-w', workspace.dir, 'run', '--session', ''], elsewhere);
      expect(candidates(named.stdout)).toEqual(ids);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it.skipIf(BASH_COMPLETION_MISSING)('in a real bash, Tab after --session completes the session ids', async () => {
    const bin = join(workspace.dir, '.bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'legion'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(LEGION)} "$@"\n`);
    chmodSync(join(bin, 'legion'), 0o755);
    const script = `source ${BASH_COMPLETION}; source <(legion completion bash)
COMP_WORDS=(legion run --session ""); COMP_CWORD=3; COMP_LINE="legion run --session "; COMP_POINT=\${#COMP_LINE}
__legion_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', script], {
      cwd: workspace.dir,
      env: { ...process.env, ...workspace.env(), PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(ids);
  });
});
