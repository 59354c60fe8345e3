import type { SandboxSettings } from '../../child-processes/sandbox.js';

/** Settings the shell family shares; the defaults suit an interactive coding agent. */
export interface ShellOptions {
  /**
   * The sandbox settings, read at each call (the config's `sandbox` and `sandboxNetwork`, which
   * may be edited while Legion runs). Default: `DEFAULT_SANDBOX_SETTINGS` (sandboxed where it works, no network).
   */
  sandbox?: (() => SandboxSettings) | undefined;
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

/** What the shell tools' descriptions tell a model of the sandbox, so that a refused write or connection is not a surprise. */
export const SANDBOX_NOTE =
  'Where the sandbox is on, the command may write only inside the workspace (and a private /tmp), not .legion/; ' +
  "secrets in the home folder are hidden, and it has no network (not even the host's localhost) unless the config gives it one. " +
  "Where the config allows some hosts, HTTP and HTTPS to them go through a proxy that HTTP_PROXY and HTTPS_PROXY name (a client that ignores those, such as Node's fetch, cannot connect), and any other host gets 403.";

export const DEFAULT_OUTPUT_LIMIT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;
