import type { SandboxNetwork } from '../../team/index.js';
import { probeBwrap } from './containment.js';
import { networkProxy } from './network-proxy.js';
import { sandboxFlags, type SandboxProfile } from './sandbox-profile.js';

/**
 * Whether commands a model wrote run in the OS sandbox (the `sandbox` config key):
 * - `on`: sandboxed where the sandbox works here; elsewhere they run as before, and the approval
 *   card and `legion doctor` say why not.
 * - `required`: sandboxed, or not run at all: the tool result says why and how to fix it.
 * - `off`: never sandboxed (they are still contained: nothing they start outlives them).
 */
export type SandboxMode = 'on' | 'off' | 'required';

/** The sandbox settings a command runs with, read from the config at each call (an edited config applies to the next). */
export interface SandboxSettings {
  mode: SandboxMode;
  /**
   * Inside the sandbox: `off`, no network at all (a loopback of its own: not even the host's
   * 127.0.0.1); `on`, the host's network, whole; `{ allow }`, no network either, but HTTP and
   * HTTPS to the hosts listed through Legion's proxy (network-proxy.ts), which the proxy
   * variables point the command at.
   */
  network: SandboxNetwork;
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = { mode: 'on', network: 'off' };

/** How a command would run now, with why: what the approval card shows and what a `whenSandboxed` rule reads. */
export type SandboxUse =
  | { kind: 'sandboxed'; detail: string }
  | { kind: 'unsandboxed'; detail: string }
  /** `required` where the sandbox cannot work: the command is not run. */
  | { kind: 'refused'; detail: string; fix: string };

export type SandboxSupport = { works: true } | { works: false; reason: string; fix: string };

let support: SandboxSupport | undefined;

/**
 * Whether the sandbox works on this machine: `true` run inside it, once per process (bwrap's start,
 * some milliseconds) and cached. A machine whose user namespaces are switched off, or without
 * bubblewrap, or not Linux, gets why and how to fix it.
 */
export function sandboxSupport(): SandboxSupport {
  support ??= detectSupport();
  return support;
}

function detectSupport(): SandboxSupport {
  if (process.platform !== 'linux')
    return {
      works: false,
      reason: `no sandbox on ${process.platform} yet (Linux uses bubblewrap; macOS's sandbox-exec is planned: docs/guide/security.md, "Commands run in a sandbox")`,
      fix: 'set "sandbox": "on" (or "off") to run commands unsandboxed here',
    };
  const here = process.cwd();
  const failure = probeBwrap(sandboxFlags({ root: here, cwd: here, network: false, env: process.env }));
  if (failure === undefined) return { works: true };
  return {
    works: false,
    reason: `the sandbox cannot work here (${failure})`,
    fix:
      'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) and let it make user namespaces ' +
      '(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later, an AppArmor profile for bwrap or ' +
      'kernel.apparmor_restrict_unprivileged_userns=0); or set "sandbox": "on" in .legion/config.json to run commands unsandboxed where it cannot work',
  };
}

/** What the sandbox confines, in the words the approval card and the tool descriptions use. */
export function describeConfinement(network: SandboxSettings['network']): string {
  return `writes only inside the workspace (not .legion/), secrets' folders hidden, ${describeNetwork(network)}`;
}

function describeNetwork(network: SandboxSettings['network']): string {
  if (network === 'on') return "the host's network";
  if (network === 'off') return 'no network';
  return `network only to ${network.allow.join(', ')} (HTTP and HTTPS, through Legion's proxy)`;
}

/** How a command will run under these settings on this machine. */
export function sandboxUse(settings: SandboxSettings): SandboxUse {
  if (settings.mode === 'off') return { kind: 'unsandboxed', detail: '"sandbox" is "off" in the config' };
  const found = sandboxSupport();
  if (found.works) return { kind: 'sandboxed', detail: describeConfinement(settings.network) };
  if (settings.mode === 'on') return { kind: 'unsandboxed', detail: found.reason };
  return { kind: 'refused', detail: `"sandbox" is "required" and ${found.reason}`, fix: found.fix };
}

/** The tool result of a command not run because the sandbox is required and cannot work. */
export function refusalMessage(use: Extract<SandboxUse, { kind: 'refused' }>): string {
  return `Not run: ${use.detail}. No command runs unsandboxed while the sandbox is required. To fix: ${use.fix}.`;
}

/**
 * The sandbox one command starts in: its profile (the root is the tool context's, so a turn
 * given a worktree writes there), none (it runs unsandboxed, as the settings or the machine say),
 * or, when the sandbox is required and cannot work, the tool result that says why and how to fix it.
 */
export function sandboxFor(
  settings: SandboxSettings,
  place: { root: string; cwd: string; env: NodeJS.ProcessEnv },
): { ok: true; profile: SandboxProfile | undefined } | { ok: false; error: string } {
  const use = sandboxUse(settings);
  if (use.kind === 'refused') return { ok: false, error: refusalMessage(use) };
  if (use.kind === 'unsandboxed') return { ok: true, profile: undefined };
  const { network } = settings;
  // The proxy starts here, on the first command that needs it, not when a card is shown.
  const proxy = typeof network === 'object' ? { socket: networkProxy().socketFor(network.allow), allow: network.allow } : undefined;
  return { ok: true, profile: { root: place.root, cwd: place.cwd, network: network === 'on', proxy, env: place.env } };
}
