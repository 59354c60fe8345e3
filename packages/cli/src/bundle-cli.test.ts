import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { useWorkspace } from './workspace.test-support.js';

// What the built binary reads when it starts: a few files of its own bundle (docs/design/cli-binary.md),
// and a provider's SDK only when a model of that provider is called.
// Which package a chunk holds is read from its source map, so the test does not depend on chunk names.
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const LEGION = join(DIST, 'legion.js');
const RECORD_LOADS = fileURLToPath(new URL('./__fixtures__/record-loads.mjs', import.meta.url));
const COUNT_FUNCTIONS = fileURLToPath(new URL('./__fixtures__/count-compiled-functions.mjs', import.meta.url));
const SDKS = ['@anthropic-ai/sdk', 'openai', '@modelcontextprotocol/client', '@modelcontextprotocol/core'] as const;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Files of modules the process loaded (node: built-ins left out). */
  loaded: string[];
  /** Node's built-in modules it loaded (`node:child_process`, internal ones too). */
  builtins: string[];
}

describe('the bundled legion binary loads only what a command needs', () => {
  // The compile cache goes in the workspace, where the tests of it look.
  const workspace = useWorkspace('legion-bundle-', (dir) => ({ XDG_CACHE_HOME: join(dir, '.cache') }));
  const { mock } = workspace;

  function legion(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
    const record = join(workspace.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', RECORD_LOADS, LEGION, ...args], {
        cwd: workspace.dir,
        env: { ...process.env, ...workspace.env(), LEGION_TEST_LOADED: record, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (status) => {
        const urls = existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : [];
        const loaded = [...new Set(urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url)))].filter(
          (file) => file !== RECORD_LOADS,
        );
        const builtins = [...new Set(urls.filter((url) => url.startsWith('node:')))];
        resolve({ status, stdout, stderr, loaded, builtins });
      });
    });
  }

  /** The npm packages whose code is in a bundle file, from its source map. */
  function packagesIn(file: string): Set<string> {
    const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return new Set(
      sources
        .map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1])
        .filter((name): name is string => name !== undefined),
    );
  }

  const sdksIn = (files: string[]): string[] => SDKS.filter((sdk) => files.some((file) => packagesIn(file).has(sdk)));

  it('legion sessions reads a handful of its own bundle files, and no provider or MCP SDK', async () => {
    const run = await legion(['sessions']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('No sessions yet');
    expect(run.loaded.filter((file) => !file.startsWith(DIST))).toEqual([]);
    // dist/legion.js starts the program; the program itself is a handful of chunks. Since the CLI
    // imports core's entries by audience (/management, /backend, /internal) the chunks are finer:
    // 11 files and 830 KB where the single entry gave 10 files and 839 KB.
    expect(run.loaded.filter((file) => file.startsWith(join(DIST, 'chunks'))).length).toBeLessThanOrEqual(12);
    expect(run.loaded.some((file) => packagesIn(file).has('zod'))).toBe(true);
    expect(sdksIn(run.loaded)).toEqual([]);
    // Starting children is for tools and MCP servers: commander's and core's node:child_process load when one starts.
    expect(run.builtins).toContain('node:fs');
    expect(run.builtins).not.toContain('node:child_process');
    // No V8 flag is set at run time (through node:v8): one would cost the code cache of every built-in loaded after it.
    expect(run.builtins).not.toContain('node:v8');
    // The tokenizer (~1 MB of ranks, ~50 MB once loaded) is a chunk of its own, read only when something is counted.
    const chunks = readdirSync(join(DIST, 'chunks'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(DIST, 'chunks', name));
    expect(chunks.filter((file) => packagesIn(file).has('gpt-tokenizer'))).toHaveLength(1);
    expect(run.loaded.filter((file) => packagesIn(file).has('gpt-tokenizer'))).toEqual([]);
  });

  it("a command never starts Node's ES module loader, whether run as npm links it (bin/legion.js) or as dist/legion.js", () => {
    // A CommonJS probe, so that nothing but the command could start the loader; it reports, at exit, whether the loader translated any module.
    const probe = join(workspace.dir, 'esm-probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write(`ESM_TRANSLATORS ${process.moduleLoadList.includes('NativeModule internal/modules/esm/translators')}\\n`));\n",
    );
    for (const entry of [join(DIST, '..', 'bin', 'legion.js'), LEGION]) {
      const result = spawnSync(process.execPath, ['--require', probe, entry, 'sessions'], {
        cwd: workspace.dir,
        env: { ...process.env, ...workspace.env() },
        encoding: 'utf8',
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('No sessions yet');
      expect(result.stderr, entry).toContain('ESM_TRANSLATORS false');
    }
  });

  it('legion run far below every context threshold does not load the tokenizer, and loads it once a request must be counted', async () => {
    const participant = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      participant,
      JSON.stringify({
        ...JSON.parse(readFileSync(participant, 'utf8')),
        model: { provider: 'anthropic', model: 'claude-opus-4-5-20251101' },
      }),
    );
    mock.on({ model: 'claude-opus-4-5-20251101', userMessage: 'hello' }, { content: 'hi there' });
    const run = await legion(['run', 'hello']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('hi there');
    expect(run.loaded.filter((file) => packagesIn(file).has('gpt-tokenizer'))).toEqual([]);

    // A model nobody knows, hosted (its base URL comes from the environment): a guessed 32k window, whose prune threshold
    // the full tool definitions alone pass by their bytes; neither reporting the request nor pruning it counts anything.
    writeFileSync(
      participant,
      JSON.stringify({ ...JSON.parse(readFileSync(participant, 'utf8')), model: { provider: 'anthropic', model: 'claude-unknown' } }),
    );
    mock.on({ model: 'claude-unknown', userMessage: 'hello' }, { content: 'hi there' });
    const guessed = await legion(['run', 'hello']);
    expect(guessed.status, guessed.stderr).toBe(0);
    expect(guessed.loaded.filter((file) => packagesIn(file).has('gpt-tokenizer'))).toEqual([]);

    // A 4k window (the small profile): a 3 KB message is past its thresholds by its bytes, so the request is counted.
    writeFileSync(
      participant,
      JSON.stringify({
        ...JSON.parse(readFileSync(participant, 'utf8')),
        model: { provider: 'anthropic', model: 'claude-test' },
        context: { window: 4_096, outputReserve: 512 },
      }),
    );
    mock.on({ model: 'claude-test', userMessage: 'hello' }, { content: 'hi there' });
    const counted = await legion(['run', `hello ${'and more '.repeat(350)}`]);
    expect(counted.status, counted.stderr).toBe(0);
    expect(counted.loaded.filter((file) => packagesIn(file).has('gpt-tokenizer'))).toHaveLength(1);
  });

  it('loading the terminal UI builds no emoji set (some 20 ms before the REPL could draw its input)', () => {
    const chunks = readdirSync(join(DIST, 'chunks'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(DIST, 'chunks', name))
      .filter((file) => packagesIn(file).has('@mariozechner/pi-tui'));
    expect(chunks.length).toBeGreaterThan(0);
    // Every RegExp the bundle makes goes through the global constructor (esbuild writes \p{…}/v patterns as `new RegExp`).
    const script = `
      const built = [];
      globalThis.RegExp = new Proxy(RegExp, { construct: (target, args) => { built.push(String(args[0])); return Reflect.construct(target, args); } });
      for (const url of ${JSON.stringify(chunks.map((file) => pathToFileURL(file).href))}) await import(url);
      if (!built.some((pattern) => pattern.includes('\\\\p{'))) throw new Error('the check saw none of the Unicode patterns of pi-tui: it no longer tests anything');
      console.log(JSON.stringify(built.filter((pattern) => pattern.includes('RGI_Emoji'))));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  });

  it('legion run loads the SDK of the model it calls, and no other', async () => {
    const participant = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      participant,
      JSON.stringify({ ...JSON.parse(readFileSync(participant, 'utf8')), model: { provider: 'anthropic', model: 'claude-test' } }),
    );
    mock.on({ model: 'claude-test', userMessage: 'hello' }, { content: 'hi there' });
    const run = await legion(['run', 'hello']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('hi there');
    expect(run.loaded.filter((file) => !file.startsWith(DIST))).toEqual([]);
    expect(sdksIn(run.loaded)).toEqual(['@anthropic-ai/sdk']);
  });

  it("legion --help and legion sessions never load undici, Node's fetch (some 35 ms of CPU), which a run loads on its first request", async () => {
    const undici = (run: Run): string[] => run.builtins.filter((name) => name.includes('undici'));
    for (const args of [['--help'], ['sessions']]) {
      const run = await legion(args);
      expect(run.status, run.stderr).toBe(0);
      expect(undici(run)).toEqual([]);
    }
    const participants = join(workspace.dir, '.legion/collective/participants');
    for (const [participant, model] of [
      ['coordinator', { provider: 'anthropic', model: 'claude-undici' }],
      ['developer', { provider: 'openai', model: 'gpt-undici' }],
    ] as const) {
      const file = join(participants, `${participant}.json`);
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }));
    }
    mock.on({ model: 'claude-undici', userMessage: 'hello anthropic' }, { content: 'from claude' });
    mock.on({ model: 'gpt-undici', userMessage: 'hello openai' }, { content: 'from gpt' });
    for (const [args, reply] of [
      [['run', 'hello anthropic'], 'from claude'],
      [['run', '--to', 'developer', 'hello openai'], 'from gpt'],
    ] as const) {
      const run = await legion([...args]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(reply);
      // Both SDKs send through Node's own fetch (core's redirectSafeFetch over it), not a client of Legion's over node:http.
      expect(undici(run)).not.toEqual([]);
    }
  });

  it('legion run makes no function from source text: zod parses without compiling a fast path that no code cache holds', async () => {
    const participant = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      participant,
      JSON.stringify({ ...JSON.parse(readFileSync(participant, 'utf8')), model: { provider: 'anthropic', model: 'claude-jitless' } }),
    );
    mock.on({ model: 'claude-jitless', userMessage: 'hello' }, { content: 'parsed' });
    const counted = join(workspace.dir, 'functions.txt');
    const run = await legion(['run', 'hello'], {
      NODE_OPTIONS: `--import ${pathToFileURL(COUNT_FUNCTIONS).href}`,
      LEGION_TEST_FUNCTIONS: counted,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('parsed');
    expect(readFileSync(counted, 'utf8')).toBe('0');
  });

  // Each test runs `legion` three or four times, one after another, each loading the whole bundle
  // (writing or reading its cache): at load 20 on 2 cores that took 39 s, past the default 30 s.
  describe('the compile cache', { timeout: 120_000 }, () => {
    const cacheFiles = (): Map<string, { bytes: Buffer; mtimeMs: number }> => {
      const root = join(workspace.dir, '.cache', 'legion', 'compile-cache');
      const files = new Map<string, { bytes: Buffer; mtimeMs: number }>();
      if (!existsSync(root)) return files;
      for (const key of readdirSync(root)) {
        for (const name of readdirSync(join(root, key))) {
          const file = join(root, key, name);
          files.set(file, { bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs });
        }
      }
      return files;
    };
    const chunksOf = (run: Run): string[] =>
      run.loaded
        .filter((file) => file.startsWith(join(DIST, 'chunks')))
        .map((file) => `${file.slice(join(DIST, 'chunks').length + 1)}.sessions.cache`);

    it('the first run caches the compiled code of every bundle file it ran; the second uses it and writes nothing', async () => {
      const first = await legion(['sessions']);
      expect(first.status, first.stderr).toBe(0);
      const written = cacheFiles();
      // (`legion init`, before each test, cached the files it ran too.)
      expect(chunksOf(first).length).toBeGreaterThan(0);
      expect([...written.keys()].map((file) => file.split('/').pop())).toEqual(expect.arrayContaining(chunksOf(first)));
      const second = await legion(['sessions']);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      // A cache V8 refused would be written again at exit: unchanged files are caches it accepted.
      expect(cacheFiles()).toEqual(written);
    });

    it('a corrupt or truncated cache file is ignored and replaced, and the command runs as usual', async () => {
      const first = await legion(['sessions']);
      const [garbled, truncated] = [...cacheFiles().keys()].filter((file) => file.endsWith('.sessions.cache'));
      if (!garbled || !truncated) throw new Error('expected cache files after the first run');
      const good = readFileSync(garbled);
      const flipped = Buffer.from(good);
      flipped[flipped.length - 100] = (flipped[flipped.length - 100] ?? 0) ^ 0xff;
      writeFileSync(garbled, flipped);
      writeFileSync(truncated, readFileSync(truncated).subarray(0, 40));
      const second = await legion(['sessions']);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stderr).toBe('');
      expect(second.stdout).toBe(first.stdout);
      const after = cacheFiles();
      expect(after.get(garbled)?.bytes).not.toEqual(flipped);
      expect(after.get(truncated)?.bytes.length).toBeGreaterThan(40);
      // What replaced them is a cache V8 accepts: a third run leaves everything as it is.
      expect((await legion(['sessions'])).status).toBe(0);
      expect(cacheFiles()).toEqual(after);
    });

    it('a cache folder that cannot be written, or NODE_DISABLE_COMPILE_CACHE, only means no cache', async () => {
      // A file where the cache folder would go: nothing can be created under it (whoever runs the test, root included).
      writeFileSync(join(workspace.dir, 'not-a-dir'), '');
      const blocked = await legion(['sessions'], { XDG_CACHE_HOME: join(workspace.dir, 'not-a-dir') });
      expect(blocked.status, blocked.stderr).toBe(0);
      expect(blocked.stderr).toBe('');
      expect(blocked.stdout).toContain('No sessions yet');
      rmSync(join(workspace.dir, '.cache'), { recursive: true, force: true });
      const disabled = await legion(['sessions'], { NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(disabled.status, disabled.stderr).toBe(0);
      expect(cacheFiles().size).toBe(0);
    });
  });
});
