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
  // The provider SDKs reach the network through fetch, whose HTTP parser is WebAssembly. Once it
  // is hot, V8 optimizes it on a background thread, and Node waits for that job before the
  // process may exit: some 90 ms after `legion run` has printed its reply. The baseline compiler
  // parses a model's stream just as well. Must come before the first fetch compiles the parser.
  // node:v8 is imported here, not at the top: loading it costs --version a millisecond and a half.
  (await import('node:v8')).setFlagsFromString('--liftoff-only');
  // Stack traces point into the bundle; with LEGION_DEBUG=1 they point into the sources (dist/
  // ships source maps). Only then: reading the maps costs start-up time.
  if (process.env.LEGION_DEBUG) process.setSourceMapsEnabled(true);
}
