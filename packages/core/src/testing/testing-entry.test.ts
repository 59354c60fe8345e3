import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BUILT_TESTING = fileURLToPath(new URL('../../dist/testing/index.js', import.meta.url));

describe('@legion-collective/core/testing outside a vitest run', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('loads neither vitest nor chai for a program that only wants ScriptedProvider, and the contract suite says where it runs', () => {
    if (!existsSync(BUILT_TESTING))
      throw new Error(
        `This test imports the built package in a child process: run "npm run build --workspace @legion-collective/core" first (${BUILT_TESTING} is missing).`,
      );
    dir = mkdtempSync(join(tmpdir(), 'legion-testing-entry-'));
    // Module hooks report every module the child loads (they run off the main thread, so they print).
    writeFileSync(
      join(dir, 'hooks.mjs'),
      'export async function load(url, context, next) { process.stderr.write(`LOADED ${url}\\n`); return next(url, context); }\n',
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    const program = `const testing = await import(${JSON.stringify(pathToFileURL(BUILT_TESTING).href)});
new testing.ScriptedProvider([{ text: 'hi' }]);
try { testing.describeSessionBackendContract('x', async () => { throw new Error('unused'); }); } catch (error) { console.log(error.message); }`;
    const env = { ...process.env };
    delete env['VITEST'];
    delete env['VITEST_WORKER_ID'];
    delete env['VITEST_POOL_ID'];
    const child = spawnSync(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', program],
      { env, encoding: 'utf8' },
    );
    expect(child.status, child.stderr).toBe(0);
    const loaded = child.stderr.split('\n').filter((line) => line.startsWith('LOADED '));
    expect(loaded.some((line) => line.includes('ScriptedProvider'))).toBe(true);
    expect(loaded.filter((line) => /\/node_modules\/(vitest|chai|@vitest)\//.test(line))).toEqual([]);
    expect(child.stdout.trim()).toBe(
      'describeSessionBackendContract runs under vitest: install vitest and call it from a *.test.ts file that vitest runs.',
    );
  });
});
