/** Settings the shell family shares; the defaults suit an interactive coding agent. */
export interface ShellOptions {
  /** Environment the commands run with, and whose secrets are redacted from their output (default: process.env without Legion's keys, see `commandEnvironment`). */
  env?: NodeJS.ProcessEnv;
  /** Bytes of each stream kept per command or poll, head and tail halves (default 30 000). */
  outputLimitBytes?: number;
  /** Time a stopped command gets between SIGTERM and SIGKILL (default 2 s). */
  killGraceMs?: number;
}

export const DEFAULT_OUTPUT_LIMIT_BYTES = 30_000;
export const DEFAULT_KILL_GRACE_MS = 2_000;
