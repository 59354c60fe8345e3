#!/usr/bin/env node
// dist/legion.js: starts the bundled program (dist/chunks/legion.js and the chunks it requires)
// through the compile cache. Built by scripts/build.mjs, which sets LEGION_BUILD_ID to a hash of
// the bundle's files, so a rebuild or an upgrade never meets the cache of another build.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { cacheVariant, compileCacheDirectory, createBundleLoader } from './compile-cache.js';

declare const LEGION_BUILD_ID: string;

// The provider SDKs reach the network through fetch, whose HTTP parser is WebAssembly. Once it is
// hot, V8 optimizes it on a background thread, and Node waits for that job before the process may
// exit: some 90 ms after `legion run` has printed its reply. The baseline compiler parses a model's
// stream just as well. Set before the program compiles: V8's code cache is valid only under the
// flags it was made with, and a flag set later would make every start reject the cache made at
// the previous exit.
setFlagsFromString('--liftoff-only');
// Nearly everything a command allocates while it starts (its modules, the SDK, fetch's undici)
// lives to its end, and V8's young generation starts at 1 MB and doubles only after each
// scavenge that filled it: `legion run` went through nine scavenges, each copying what the last
// one kept. Growing eightfold reaches the same ceiling (the default maximum is unchanged) sooner:
// six. Set here for the same reason as the flag above.
setFlagsFromString('--semi-space-growth-factor=8');

const program = fileURLToPath(new URL('./chunks/legion.js', import.meta.url));
if (process.env.LEGION_DEBUG) {
  // Node's own loader, which maps stack traces through the source maps beside the files.
  process.setSourceMapsEnabled(true);
  createRequire(import.meta.url)(program);
} else {
  createBundleLoader(compileCacheDirectory(LEGION_BUILD_ID), cacheVariant(process.argv.slice(2)))(program);
}
