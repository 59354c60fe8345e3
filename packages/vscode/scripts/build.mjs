// Builds the extension: src/extension.ts and everything it imports — core, server, zod, the
// provider SDKs, ajv, mvdan-sh, store-postgres and pg (run only for a PostgreSQL workspace) — bundled by esbuild into one CommonJS file, dist/extension.cjs, so
// that the .vsix needs no node_modules (VS Code 1.100 loads extensions as CommonJS). The browser
// app's build (packages/web/dist, made by the root `npm run build`) is placed in dist/web, which
// the graph panel serves through packages/server; nothing of the app is copied into this package's sources.
import { build } from 'esbuild';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DIST = `${PACKAGE}dist`;

/**
 * Core loads ajv and mvdan-sh with `createRequire(import.meta.url)(…)` to load them on first use;
 * no bundler follows that, and the .vsix has no node_modules. Here they become plain `require`
 * calls, which esbuild bundles (still run only when reached).
 */
const CREATE_REQUIRE = /createRequire\(import\.meta\.url\)/g;
const bundledRequires = {
  name: 'bundled-requires',
  setup(build) {
    const seen = new Set();
    build.onLoad({ filter: /[\\/]core[\\/]dist[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!CREATE_REQUIRE.test(source)) return undefined;
      seen.add(args.path);
      const contents = source.replace(/^const require = createRequire\(import\.meta\.url\);$/m, '').replace(CREATE_REQUIRE, 'require');
      return { contents, loader: 'js' };
    });
    build.onEnd((result) => {
      // A core that stopped using createRequire needs no plugin; one that moved it would break at run time.
      if (result.errors.length === 0 && seen.size < 2)
        throw new Error(
          `bundled-requires: expected core's two createRequire uses (shell-command, json-schema-input), saw ${seen.size}: update the plugin`,
        );
    });
  },
};

rmSync(DIST, { recursive: true, force: true });
await build({
  absWorkingDir: PACKAGE,
  entryPoints: { extension: 'src/extension.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // pg's optional native binding and its Cloudflare socket are never used here (pg loads them only when asked).
  external: ['vscode', 'pg-native', 'pg-cloudflare', 'cloudflare:sockets'],
  plugins: [bundledRequires],
  define: { 'import.meta.url': '__legionFileUrl' },
  banner: { js: '"use strict";var __legionFileUrl = require("node:url").pathToFileURL(__filename).href;' },
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});

const WEB_BUILD = `${PACKAGE}../web/dist`;
if (!existsSync(`${WEB_BUILD}/index.html`))
  throw new Error(
    'packages/web/dist is missing: run `npm run build` at the repository root first (the graph panel serves the browser app)',
  );
cpSync(WEB_BUILD, `${DIST}/web`, { recursive: true });
