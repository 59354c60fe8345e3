// Runs the bundle's CommonJS files through `vm.Script` with V8's code cache, so that a command
// skips compiling what it ran last time. Node 20 keeps no compile cache for any module, and Node
// 22's `module.enableCompileCache()` covers what Node's own loader compiles; this covers the
// bundle on both (docs/design/cli-binary.md).
//
// The cache is an optimisation only: a missing, unreadable, read-only, stale or corrupt cache
// falls back to compiling, silently, and a bad file is replaced.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import vm from 'node:vm';

/**
 * Starts every cache file, then the payload's length and SHA-1, so that a torn or damaged file is
 * never handed to V8 (which checks little of it). SHA-1 rather than zlib's crc32: node:zlib takes
 * ~4 ms to load, node:crypto is loaded already.
 */
const MAGIC = Buffer.from('LEGIONCC2\n');
const DIGEST_BYTES = 20;
const HEADER_BYTES = MAGIC.length + 4 + DIGEST_BYTES;

function digest(payload: Buffer): Buffer {
  return createHash('sha1').update(payload).digest();
}
/** Cache folders of other builds or Node versions untouched this long are removed when a new one is made. */
const STALE_AFTER_MS = 14 * 24 * 60 * 60 * 1000;

interface LoadedModule {
  exports: unknown;
}

/** Where a build's cache lives: one folder per build, Node version and V8 options, so an upgrade never meets an old cache. */
export function compileCacheDirectory(buildId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE || env.LEGION_DEBUG) return undefined;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const key = createHash('sha256')
    .update([buildId, process.version, process.arch, process.execArgv.join(' '), env.NODE_OPTIONS ?? ''].join('\0'))
    .digest('hex')
    .slice(0, 16);
  return join(base, 'legion', 'compile-cache', key);
}

/**
 * Which command the process runs, as far as the loader can tell: the first argument when it looks
 * like a command name. Each command keeps its own cache files: V8 caches only the functions the run
 * that wrote a file had compiled, so a shared chunk cached by `legion sessions` would leave most of
 * what `legion run` needs to be compiled again at every run.
 */
export function cacheVariant(argv: readonly string[]): string {
  const first = argv[0];
  return first !== undefined && /^[a-z][a-z-]{0,31}$/.test(first) ? first : 'default';
}

/** The code cache in `file`, or undefined when it is missing or fails its check. */
function readCache(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const payload = bytes.subarray(HEADER_BYTES);
  if (bytes.readUInt32LE(MAGIC.length) !== payload.length || !bytes.subarray(MAGIC.length + 4, HEADER_BYTES).equals(digest(payload)))
    return undefined;
  return payload;
}

function writeCache(file: string, payload: Buffer): void {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(payload.length, MAGIC.length);
  digest(payload).copy(header, MAGIC.length + 4);
  // Another legion process may read or write the same file: it only ever sees a whole one.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, Buffer.concat([header, payload]));
    fs.renameSync(temporary, file);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

function removeStaleSiblings(directory: string): void {
  const parent = dirname(directory);
  const now = Date.now();
  for (const name of fs.readdirSync(parent)) {
    const sibling = join(parent, name);
    if (sibling === directory) continue;
    try {
      if (now - fs.statSync(sibling).mtimeMs > STALE_AFTER_MS) fs.rmSync(sibling, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile, or not ours to remove.
    }
  }
}

/**
 * A loader for CommonJS files that require each other by relative path (the bundle's chunks):
 * each is compiled with the code cache from `cacheDirectory` when one is there and valid, and
 * when the process exits, the files that had none get one. Everything else is required by Node.
 */
export function createBundleLoader(cacheDirectory: string | undefined, variant = 'default'): (file: string) => unknown {
  const modules = new Map<string, LoadedModule>();
  const uncached: { script: vm.Script; cacheFile: string }[] = [];

  if (cacheDirectory) {
    process.once('exit', () => {
      if (uncached.length === 0) return;
      try {
        const fresh = !fs.existsSync(cacheDirectory);
        fs.mkdirSync(cacheDirectory, { recursive: true });
        if (fresh) removeStaleSiblings(cacheDirectory);
        for (const { script, cacheFile } of uncached) writeCache(cacheFile, script.createCachedData());
      } catch {
        // A read-only or full disk: the next start compiles again.
      }
    });
  }

  function load(file: string): unknown {
    const known = modules.get(file);
    if (known) return known.exports;
    const source = fs.readFileSync(file, 'utf8');
    const cacheFile = cacheDirectory ? join(cacheDirectory, `${basename(file)}.${variant}.cache`) : undefined;
    const cachedData = cacheFile ? readCache(cacheFile) : undefined;
    // Node's own CommonJS wrapper, so the files also run under plain `require` (LEGION_DEBUG does that).
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cacheFile && (!cachedData || script.cachedDataRejected)) uncached.push({ script, cacheFile });
    const module: LoadedModule = { exports: {} };
    modules.set(file, module);
    const nodeRequire = createRequire(file);
    const directory = dirname(file);
    const requireFromFile = (specifier: string): unknown =>
      specifier.startsWith('./') ? load(resolve(directory, specifier)) : nodeRequire(specifier);
    const run = script.runInThisContext() as (
      exports: unknown,
      require: unknown,
      module: LoadedModule,
      filename: string,
      dirname: string,
    ) => void;
    run.call(module.exports, module.exports, requireFromFile, module, file, directory);
    return module.exports;
  }

  return load;
}
