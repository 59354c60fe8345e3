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
  // `--liftoff-only` (why: see bundle-entry.ts) is set by dist/legion.js before any code compiles.
  // Stack traces point into the bundle; with LEGION_DEBUG=1 they point into the sources (dist/
  // ships source maps). Only then: reading the maps costs start-up time.
  if (process.env.LEGION_DEBUG) process.setSourceMapsEnabled(true);
  await import('./zod-settings.js');
}
