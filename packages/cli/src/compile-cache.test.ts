import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheVariant, compileCacheDirectory, createBundleLoader } from './compile-cache.js';

describe('compileCacheDirectory', () => {
  it('gives each build its own folder under $XDG_CACHE_HOME/legion, and none when the cache is turned off', () => {
    const env = { XDG_CACHE_HOME: '/cache' };
    const one = compileCacheDirectory('build-one', env);
    expect(one?.startsWith('/cache/legion/compile-cache/')).toBe(true);
    expect(compileCacheDirectory('build-one', env)).toBe(one);
    // A rebuild (or another Node, or other Node options) must never meet this build's cache.
    expect(compileCacheDirectory('build-two', env)).not.toBe(one);
    expect(compileCacheDirectory('build-one', { ...env, NODE_OPTIONS: '--max-old-space-size=100' })).not.toBe(one);
    expect(compileCacheDirectory('build-one', { ...env, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    expect(compileCacheDirectory('build-one', { ...env, LEGION_DEBUG: '1' })).toBeUndefined();
  });
});

describe('cacheVariant', () => {
  it('keeps a cache per command: the first argument when it is a command name, else one shared default', () => {
    expect(cacheVariant(['run', 'hello'])).toBe('run');
    expect(cacheVariant(['sessions'])).toBe('sessions');
    expect(cacheVariant([])).toBe('default');
    expect(cacheVariant(['-w', 'dir', 'sessions'])).toBe('default');
    expect(cacheVariant(['../../etc/passwd'])).toBe('default');
  });
});

describe('createBundleLoader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-compile-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs CommonJS files that require each other by relative path, each once, with Node modules beside them', () => {
    writeFileSync(join(dir, 'shared.js'), 'globalThis.__sharedRuns = (globalThis.__sharedRuns ?? 0) + 1; exports.value = 20;');
    writeFileSync(join(dir, 'a.js'), 'exports.total = require("./shared.js").value + 1;');
    writeFileSync(
      join(dir, 'main.js'),
      'const { join } = require("node:path"); module.exports = { total: require("./a.js").total + require("./shared.js").value, path: join("x", "y"), file: __filename };',
    );
    const main = createBundleLoader(undefined)(join(dir, 'main.js'));
    expect(main).toEqual({ total: 41, path: join('x', 'y'), file: join(dir, 'main.js') });
    expect((globalThis as { __sharedRuns?: number }).__sharedRuns).toBe(1);
    // No cache folder given: nothing is written anywhere.
    expect(readdirSync(dir).sort()).toEqual(['a.js', 'main.js', 'shared.js']);
  });
});
