// Builds the `legion` binary: src/legion.ts and everything it imports — core (from its tsc build),
// zod, commander, the provider and MCP SDKs — bundled by esbuild into dist/legion.js plus chunks
// that load on first use. Reading a few files instead of some 300 is most of a command's start-up
// (docs/design/cli-binary.md); splitting keeps what a command does not use unread:
// each `await import('./commands/x.js')` in legion.ts becomes a chunk, and so do the SDKs, which
// core loads with `import()` only when a provider or an MCP server is used.
//
// LEGION_BUILD_REPORT=1 lists the output files and what is in the biggest ones; LEGION_BUILD_READABLE=1
// leaves the code unminified, for profiling (`node --cpu-prof dist/legion.js …` then shows real names).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DIST = `${PACKAGE}dist`;
const manifest = JSON.parse(readFileSync(`${PACKAGE}package.json`, 'utf8'));

/**
 * Left to Node at run time. Core loads these with `createRequire(import.meta.url)(…)`, which no
 * bundler follows; they are this package's own dependencies so that they resolve from dist/.
 */
const RESOLVED_AT_RUN_TIME = ['ajv', 'ajv-formats', 'mvdan-sh'];
for (const name of RESOLVED_AT_RUN_TIME) {
  if (!manifest.dependencies?.[name])
    throw new Error(`${name} is loaded at run time by the bundle: list it in packages/cli/package.json "dependencies"`);
}

/**
 * zod's `z.locales` holds the error messages of some fifty languages (a third of zod's code), and
 * every process would parse them. Legion speaks English (its error messages are part of its
 * interface), so the bundle's `z.locales` has `en` only. Nothing else of zod changes.
 */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(build) {
    let replaced = false;
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => {
      replaced = true;
      return { contents: "export { default as en } from './en.js';\n", resolveDir: dirname(args.path), loader: 'js' };
    });
    build.onEnd((result) => {
      // A zod that moved its locales would silently bring all of them back.
      if (result.errors.length === 0 && !replaced)
        throw new Error('zod-english-only: zod/v4/locales/index.js was not part of the build; update the plugin for this zod');
    });
  },
};

/**
 * src/start-up.ts turns zod's jit off through the object `z.config()` writes, `globalThis.__zod_globalConfig`,
 * before zod loads. A zod that kept its settings elsewhere would quietly ignore it: the build fails instead.
 */
const ZOD_GLOBAL_CONFIG = 'globalThis.__zod_globalConfig';
const zodGlobalConfigCheck = {
  name: 'zod-global-config-check',
  setup(build) {
    let checked = false;
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/ }, (args) => {
      if (!readFileSync(args.path, 'utf8').includes(ZOD_GLOBAL_CONFIG))
        throw new Error(`zod-global-config-check: ${args.path} no longer has ${ZOD_GLOBAL_CONFIG}; update src/start-up.ts for this zod`);
      checked = true;
      return undefined;
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && !checked)
        throw new Error('zod-global-config-check: zod/v4/core/core.js was not part of the build; update the check');
    });
  },
};

/**
 * pi-tui builds its emoji test, `/^\p{RGI_Emoji}$/v`, when its utils module loads: V8 expands the
 * Unicode set at once, some 20 ms before the REPL can draw its input, for a test that runs only on a
 * segment that may be an emoji. The bundle builds it on the first such test; pi-tui's code is
 * otherwise unchanged.
 */
const PI_TUI_EMOJI_REGEX = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const lazyEmojiRegex = {
  name: 'pi-tui-lazy-emoji-regex',
  setup(build) {
    let replaced = false;
    build.onLoad({ filter: /[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // A pi-tui that changed the line would quietly bring the cost back.
      if (!source.includes(PI_TUI_EMOJI_REGEX))
        throw new Error(`pi-tui-lazy-emoji-regex: ${args.path} no longer has "${PI_TUI_EMOJI_REGEX}"; update the plugin for this pi-tui`);
      replaced = true;
      const lazy =
        'let rgiEmojiRegexBuilt; const rgiEmojiRegex = { test: (text) => (rgiEmojiRegexBuilt ??= /^\\p{RGI_Emoji}$/v).test(text) };';
      return { contents: source.replace(PI_TUI_EMOJI_REGEX, lazy), resolveDir: dirname(args.path), loader: 'js' };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && !replaced)
        throw new Error('pi-tui-lazy-emoji-regex: @mariozechner/pi-tui/dist/utils.js was not part of the build; update the plugin');
    });
  },
};

/**
 * commander requires node:child_process when it loads, for the one thing Legion never does with
 * it (running a subcommand as its own executable). Loading it (and node:net with it) costs every
 * command ~4 ms before it runs; `legion sessions` never needs either. The bundle requires it on
 * first use; commander's code is otherwise unchanged.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyCommanderChildProcess = {
  name: 'commander-lazy-child-process',
  setup(build) {
    let replaced = false;
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(COMMANDER_CHILD_PROCESS))
        throw new Error(
          `commander-lazy-child-process: ${args.path} no longer has "${COMMANDER_CHILD_PROCESS}"; update the plugin for this commander`,
        );
      replaced = true;
      const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(COMMANDER_CHILD_PROCESS, lazy), resolveDir: dirname(args.path), loader: 'js' };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && !replaced)
        throw new Error('commander-lazy-child-process: commander/lib/command.js was not part of the build; update the plugin');
    });
  },
};

// A stale chunk from an earlier build would sit beside the new ones; start clean.
rmSync(DIST, { recursive: true, force: true });

// The program, bundled and split as ES modules (esbuild splits only those), each file then turned
// into CommonJS below: dist/chunks/legion.js and the chunks it requires.
const result = await build({
  absWorkingDir: PACKAGE,
  entryPoints: { legion: 'src/legion.ts' },
  outdir: 'dist',
  entryNames: 'chunks/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // pg-native: pg's optional libpq binding, required only if `pg.native` is read (store-postgres never does) and not installed.
  external: [...RESOLVED_AT_RUN_TIME, ...RESOLVED_AT_RUN_TIME.map((name) => `${name}/*`), 'pg-native'],
  plugins: [englishOnlyZod, zodGlobalConfigCheck, lazyEmojiRegex, lazyCommanderChildProcess],
  define: { LEGION_VERSION: JSON.stringify(manifest.version) },
  // Half the bytes for V8 to parse at every start. Names are kept: errors name their class
  // (`new.target.name`), and LEGION_DEBUG=1 maps stack traces back to the sources.
  minify: !process.env.LEGION_BUILD_READABLE,
  keepNames: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

/**
 * Each ES module file becomes a CommonJS one, in place: V8 can cache the compiled code of a
 * script (vm.Script's cachedData) but Node 20 offers no such cache for ES modules, and compiling
 * the bundle was a quarter of a command's start-up (docs/design/cli-binary.md).
 * `import()` of a chunk becomes `require()` (still run only when reached, so a command loads
 * what it uses and nothing more); `import.meta.url` becomes the file's own URL.
 */
// LEGION_BUILD_METAFILE=<path>: what each chunk holds, by source file and bytes, to see what a command loads (esbuild's analyzer reads it too).
if (process.env.LEGION_BUILD_METAFILE) writeFileSync(process.env.LEGION_BUILD_METAFILE, JSON.stringify(result.metafile));
const chunkFiles = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
const converted = await build({
  absWorkingDir: PACKAGE,
  entryPoints: chunkFiles,
  outdir: 'dist/chunks',
  allowOverwrite: true,
  bundle: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__legionFileUrl' },
  // "use strict" first: ES modules were strict, and a directive after the banner's statement would not count.
  banner: { js: '"use strict";var __legionFileUrl = require("node:url").pathToFileURL(__filename).href;' },
  // The names are kept by the first build already (its `__name` calls are in these files). Renaming
  // again here would need keepNames again, which named every function a second time at every start
  // (some 1,500 `Object.defineProperty` calls for `legion sessions`): whitespace and syntax only.
  minifyWhitespace: !process.env.LEGION_BUILD_READABLE,
  minifySyntax: !process.env.LEGION_BUILD_READABLE,
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
});
// `import()` of a chunk became `__toESM(require("./chunk.js"), 1)`: the 1 asks for Node's interop
// (the module's default export is its whole `exports`), as esbuild must assume of a file it does not
// see. Every chunk is a converted ES module, so its own `default` is the one to use: 0, same width,
// so the source maps stay exact.
//
// Code splitting can leave a chunk with no module in it: the code two commands share was all
// tree-shaken away (core's area indexes re-export much that a command never uses), yet esbuild still
// writes the chunk and a require() of it, a file read and compile at every start for nothing. Such a
// chunk is dropped, and each require() of it becomes an empty object, padded to the same width.
const BANNER_AND_DIRECTIVES = /^(?:"use strict";(?:var __legionFileUrl = require\("node:url"\)\.pathToFileURL\(__filename\)\.href;)?\s*)+/;
const emptyChunks = new Set(
  converted.outputFiles
    .filter(
      (output) =>
        output.path.endsWith('.js') &&
        output.text
          .replace(BANNER_AND_DIRECTIVES, '')
          .replace(/\/\/# sourceMappingURL=\S+\s*$/, '')
          .trim() === '',
    )
    .map((output) => basename(output.path)),
);
if (emptyChunks.has('legion.js')) throw new Error('build: the program itself came out empty');
let dynamicImports = 0;
const written = [];
for (const output of converted.outputFiles) {
  const chunk = basename(output.path).replace(/\.map$/, '');
  if (emptyChunks.has(chunk)) {
    rmSync(output.path, { force: true });
    continue;
  }
  let text = output.text;
  if (output.path.endsWith('.js')) {
    text = text.replace(/(\(require\("\.\/[\w.-]+\.js"\),\s*)1\)/g, (_match, call) => {
      dynamicImports++;
      return `${call}0)`;
    });
    text = text.replace(/require\("\.\/([\w.-]+\.js)"\)/g, (call, name) => (emptyChunks.has(name) ? '{}'.padEnd(call.length) : call));
    written.push(output);
  }
  writeFileSync(output.path, text);
}
if (dynamicImports === 0)
  throw new Error(
    'build: found no import() of a chunk in the CommonJS output; esbuild changed how it writes them: update the rewrite above',
  );
// The chunks are CommonJS whoever loads them: the compile cache, or Node (LEGION_DEBUG, tests).
writeFileSync(`${DIST}/chunks/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);

// A hash of every file of the program names its compile cache: a rebuild gets a cache of its own.
const buildHash = createHash('sha256');
for (const output of written.sort((a, b) => a.path.localeCompare(b.path))) {
  buildHash.update(basename(output.path)).update(readFileSync(output.path));
}
// dist/legion.js is CommonJS too (dist/package.json below), as bin/legion.js is: an ES module as the
// process's main file makes Node start its ES module loader first, some 4 ms of CPU at every start.
await build({
  absWorkingDir: PACKAGE,
  entryPoints: { legion: 'src/bundle-entry.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  define: { LEGION_BUILD_ID: JSON.stringify(buildHash.digest('hex').slice(0, 32)), 'import.meta.url': '__legionFileUrl' },
  banner: { js: '"use strict";var __legionFileUrl = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: 'linked',
  logLevel: 'warning',
});
writeFileSync(`${DIST}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);

// The browser app `legion serve` serves: the web package's build, when it was built (npm run build
// builds it before this package). Without it, `legion serve` runs the API and its page says so.
const WEB_BUILD = `${PACKAGE}../web/dist`;
if (existsSync(`${WEB_BUILD}/index.html`)) cpSync(WEB_BUILD, `${DIST}/web`, { recursive: true });

// npm links the bin as executable either way; this is for running dist/legion.js directly.
chmodSync(`${DIST}/legion.js`, 0o755);

if (process.env.LEGION_BUILD_REPORT) {
  const outputs = Object.entries(converted.metafile.outputs).filter(([file]) => file.endsWith('.js'));
  for (const [file, output] of outputs.sort((a, b) => b[1].bytes - a[1].bytes)) {
    const sizes = new Map();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const owner = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split('/').slice(0, 4).join('/');
      sizes.set(owner, (sizes.get(owner) ?? 0) + bytesInOutput);
    }
    const top = [...sizes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([owner, bytes]) => `${owner} ${(bytes / 1024).toFixed(0)} KB`);
    console.log(`${(output.bytes / 1024).toFixed(0).padStart(6)} KB  ${file.padEnd(40)} ${top.join(', ')}`);
  }
}
