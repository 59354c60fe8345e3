// Process-wide settings for a `legion` command, made before the command's code (core, zod, the
// SDKs) loads. Called by runCli, so that `--help` and `--version` skip them.
import module from 'node:module';

let prepared = false;

export async function prepareCommandProcess(): Promise<void> {
  if (prepared) return;
  prepared = true;
  // Node 22.1+ keeps V8's compiled code of what a command loads on disk, so the next start skips
  // compiling it again; Node 20 has no such cache. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  // Stack traces point into the bundle; with LEGION_DEBUG=1 they point into the sources (dist/
  // ships source maps). Only then: reading the maps costs start-up time.
  if (process.env.LEGION_DEBUG) process.setSourceMapsEnabled(true);
  // zod compiles a fast path (`new Function`) for each object schema on its first parse, which V8
  // compiles again at every start (no code cache holds it): ~2 ms of a `legion run`, which parses a
  // handful of files once each. It only speeds up parsing one schema many times; the results are the
  // same without it. This is what `z.config({ jitless: true })` sets, set before zod loads (zod reads it
  // when a schema is built) without loading zod here; scripts/build.mjs fails if zod stops reading it.
  const zodConfig = ((globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig ??= {});
  zodConfig.jitless = true;
}
