// node:child_process on first use. With node:net under it, it costs a few milliseconds to load,
// and every process that opens a workspace imports this folder, though most (`legion sessions`,
// a `legion run` whose agent runs no command) never start a child.
import { createRequire } from 'node:module';
import type * as ChildProcessModule from 'node:child_process';

let loaded: typeof ChildProcessModule | undefined;

export function childProcessModule(): typeof ChildProcessModule {
  loaded ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcessModule;
  return loaded;
}
