#!/usr/bin/env node
// dist/legion.js: starts the bundled program (dist/chunks/legion.js and the chunks it requires)
// through the compile cache. Built by scripts/build.mjs, which sets LEGION_BUILD_ID to a hash of
// the bundle's files, so a rebuild or an upgrade never meets the cache of another build.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cacheVariant, compileCacheDirectory, createBundleLoader } from './compile-cache.js';

declare const LEGION_BUILD_ID: string;

// No V8 flag is set here (`v8.setFlagsFromString`), though some would suit a short command: a flag
// set at run time changes V8's flag hash, and the code cache Node ships for its own built-in
// modules is valid only under the hash it was made with, so every built-in the command loads
// afterwards (node:vm, crypto, streams, readline…) is compiled from source. Ten of them took 21 ms
// of CPU instead of 8 (docs/design/cli-binary.md).

const program = fileURLToPath(new URL('./chunks/legion.js', import.meta.url));
if (process.env.LEGION_DEBUG) {
  // Node's own loader, which maps stack traces through the source maps beside the files.
  process.setSourceMapsEnabled(true);
  createRequire(import.meta.url)(program);
} else {
  createBundleLoader(compileCacheDirectory(LEGION_BUILD_ID), cacheVariant(process.argv.slice(2)))(program);
}
