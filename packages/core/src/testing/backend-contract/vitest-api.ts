import type * as Vitest from 'vitest';

// Only the contract suite needs vitest. The rest of `/testing` (ScriptedProvider, which the CLI's
// demo uses) must load where vitest is not installed, so it is imported here, if present, rather
// than required by a static import. And only inside a vitest run (which sets VITEST): elsewhere the
// suite cannot run anyway, and loading vitest and chai there cost a process using ScriptedProvider
// some 10 MB of RSS for nothing (bench/memory-runs.mjs).
const loaded: typeof Vitest | undefined = process.env['VITEST'] ? await import('vitest').catch(() => undefined) : undefined;

/** vitest's `describe`, `it`, `expect` and hooks, or an error saying how to get them. */
export function vitest(): typeof Vitest {
  if (!loaded)
    throw new Error('describeSessionBackendContract runs under vitest: install vitest and call it from a *.test.ts file that vitest runs.');
  return loaded;
}
