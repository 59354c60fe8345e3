/** Settings the shell family shares; the defaults suit an interactive coding agent. */
export interface ShellOptions {
  /** Environment the commands run with, and whose secrets are redacted from their output (default: process.env without Legion's keys, see `commandEnvironment`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Bytes of each stream kept per command or poll, head and tail halves (default 10 MiB, the
   * default `context.artifactMaxBytes`): memory stays bounded, and what reaches the model's
   * context is the eviction's preview, not this.
   */
  outputLimitBytes?: number;
  /** Time a stopped command gets between SIGTERM and SIGKILL (default 2 s). */
  killGraceMs?: number;
}

export const DEFAULT_OUTPUT_LIMIT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;
