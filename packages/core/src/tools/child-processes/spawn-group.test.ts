import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

// The built module: a separate Node process uses it as Legion would, and dies by SIGKILL.
const SPAWN_GROUP = fileURLToPath(new URL('../../../dist/tools/child-processes/spawn-group.js', import.meta.url));

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  // A zombie (in a container whose init does not reap) has ended.
  return existsSync(`/proc/${pid}/stat`) && /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

describe('spawnGroup', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-spawn-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs nothing when Legion dies between starting a command and announcing its group', async () => {
    const marker = join(dir, 'ran');
    const script = `
      const { spawnGroup } = await import(${JSON.stringify(SPAWN_GROUP)});
      const child = spawnGroup('/bin/sh', ['-c', 'echo ran > ${marker}'], { cwd: ${JSON.stringify(dir)}, env: process.env, command: 'probe' });
      process.stdout.write(child.pid + '\\n');
      process.kill(process.pid, 'SIGKILL');
    `;
    const legion = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    legion.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => legion.once('close', resolve));
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    for (let waited = 0; !gone(pid) && waited < 10_000; waited += 20) await delay(20);
    expect(gone(pid)).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs the command once it is announced, with its arguments as given', async () => {
    const script = `
      const { spawnGroup } = await import(${JSON.stringify(SPAWN_GROUP)});
      const child = spawnGroup('printf', ['%s|', 'a b', '$(x)', ';'], { cwd: ${JSON.stringify(dir)}, env: process.env, command: 'probe' });
      child.stdout.pipe(process.stdout);
    `;
    const legion = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    legion.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => legion.once('close', resolve));
    expect(out).toBe('a b|$(x)|;|');
  });
});
