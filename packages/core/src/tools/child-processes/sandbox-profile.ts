import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { globalConfigPath } from '../../team/index.js';
import { LEGION_DIR } from '../../store/index.js';
import { worktreeGitFlags } from './sandbox-git.js';
import type { ProxyRoute } from './network-bridge.js';

/** What one sandboxed command may touch: its workspace (or worktree) root, read-write, and whether it has a network. */
export interface SandboxProfile {
  /** The root the command may write under (the tool context's `workspaceRoot`: a worktree's when a turn runs in one). */
  root: string;
  /** The folder it starts in (inside `root`). */
  cwd: string;
  /** The host's network (`sandboxNetwork: "on"`); otherwise a network namespace with a loopback of its own and nothing else. */
  network: boolean;
  /** With `sandboxNetwork: { allow }`: no network still, and Legion's proxy reached through its socket, bound in (network-bridge.ts). */
  proxy?: ProxyRoute | undefined;
  /** Where `~` and the XDG folders are: Legion's environment (the command's is the same, less Legion's keys). */
  env: NodeJS.ProcessEnv;
}

/**
 * Locations hidden from every sandboxed command, relative to the home folder, each with why. A
 * folder is replaced by an empty one (in memory: what a command writes there is lost), a file by
 * /dev/null (it reads as empty; writes go nowhere). Nothing here is needed to build or test code;
 * what a command needs of one (a registry token in ~/.npmrc) it gets from the environment, which
 * `shell.passEnv` controls.
 */
export const HIDDEN_HOME_LOCATIONS: ReadonlyArray<{ path: string; why: string }> = [
  { path: '.ssh', why: 'SSH private keys and known hosts' },
  { path: '.gnupg', why: 'GPG private keys, and the agent socket that signs with them' },
  { path: '.aws', why: 'AWS access keys' },
  { path: '.azure', why: 'Azure CLI tokens' },
  { path: '.config/gcloud', why: 'Google Cloud credentials' },
  { path: '.kube', why: 'Kubernetes cluster credentials' },
  { path: '.docker', why: "registry logins (config.json) and a rootless Docker's socket" },
  { path: '.config/gh', why: 'the GitHub CLI token' },
  { path: '.password-store', why: 'pass, the password store' },
  { path: '.local/share/keyrings', why: 'the desktop keyring' },
  { path: '.netrc', why: 'passwords curl, git and ftp send to hosts' },
  { path: '.git-credentials', why: "git's stored credentials" },
  { path: '.npmrc', why: 'npm registry tokens' },
  { path: '.yarnrc.yml', why: 'yarn registry tokens' },
  { path: '.pypirc', why: 'PyPI upload tokens' },
  { path: '.cargo/credentials.toml', why: 'crates.io token' },
  { path: '.cargo/credentials', why: 'crates.io token (older cargo)' },
  { path: '.pgpass', why: 'PostgreSQL passwords' },
  { path: '.my.cnf', why: 'MySQL passwords' },
  { path: '.env', why: 'environment secrets some tools read from the home folder' },
  { path: '.bash_history', why: 'shell history: secrets typed on command lines' },
  { path: '.zsh_history', why: 'shell history: secrets typed on command lines' },
];

/**
 * System locations hidden from every sandboxed command. Linux has no mount flag against connecting
 * to a Unix socket, and a read-only folder still lets one connect: these hold the sockets of
 * daemons that act for whoever connects (Docker: root on the host; the D-Bus buses; the user's
 * ssh-agent, gpg-agent and podman under /run/user; PostgreSQL's local socket). Replaced by an
 * empty folder, as `/tmp` is (private to the command: X11's socket and ssh-agent's live there).
 */
export const HIDDEN_SYSTEM_LOCATIONS: ReadonlyArray<{ path: string; why: string }> = [
  { path: '/run', why: 'daemon sockets (Docker, D-Bus, PostgreSQL, /run/user/<uid>: ssh-agent, gpg-agent, podman)' },
  { path: '/var/run', why: 'the same, where it is not a link to /run' },
];

/**
 * Inside the writable root, read-only all the same: Legion's own state (roster, config, approval
 * rules, sessions; read-only rather than hidden so that `git status` sees the tree as it is), and
 * what runs later outside the sandbox on the human's behalf (git hooks and config, editor settings
 * that name programs): a command must not plant what escapes it.
 */
export const READ_ONLY_IN_ROOT: ReadonlyArray<{ path: string; why: string }> = [
  { path: LEGION_DIR, why: "Legion's own state: who may do what, and the sessions" },
  { path: '.git/hooks', why: 'git runs them on the next commit, outside the sandbox' },
  { path: '.git/config', why: 'core.hooksPath, aliases and filters name programs git runs' },
  { path: '.vscode', why: 'tasks and settings name programs the editor runs' },
  { path: '.idea', why: 'run configurations name programs the IDE runs' },
  { path: '.envrc', why: 'direnv runs it when a shell enters the folder' },
];

/** Legion's global config folder (provider keys live in its config.json): hidden with the rest. */
function legionConfigFolder(env: NodeJS.ProcessEnv): string {
  return dirname(globalConfigPath(env));
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
}

/** The path with its symbolic links resolved, or undefined when nothing is there. */
function existing(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * bwrap's arguments for one command, after `--unshare-pid --die-with-parent` (containment.ts): the
 * host's filesystem read-only, a /dev and /proc of its own, a private /tmp, the root writable but
 * for `READ_ONLY_IN_ROOT`, the hidden locations emptied, no capabilities (a command run by root
 * could otherwise remount / read-write), and no network unless the profile has one. Order
 * matters: a later mount covers an earlier one, so the root comes after /tmp (a workspace in /tmp
 * stays reachable) and what is hidden or read-only comes after the root (a home folder used as
 * the workspace still hides ~/.ssh).
 */
export function sandboxFlags(profile: SandboxProfile): string[] {
  const root = existing(profile.root) ?? profile.root;
  const flags = ['--cap-drop', 'ALL', '--unshare-ipc', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  if (!profile.network) flags.push('--unshare-net');
  for (const { path } of HIDDEN_SYSTEM_LOCATIONS) {
    const real = existing(path);
    // A location that holds the root (a workspace under /run) is left as it is: hiding it would hide the workspace.
    if (real !== undefined && real !== '/tmp' && !isInside(root, real) && !flags.includes(real)) flags.push('--tmpfs', real);
  }
  // With the host's network, names resolve through /run/systemd/resolve on hosts where /etc/resolv.conf links there.
  if (profile.network) {
    const resolver = existing('/run/systemd/resolve');
    if (resolver !== undefined) flags.push('--ro-bind', resolver, resolver);
  }
  flags.push('--bind', root, root);
  for (const { path } of READ_ONLY_IN_ROOT) {
    const real = existing(join(root, path));
    if (real !== undefined && isInside(real, root)) flags.push('--ro-bind', real, real);
  }
  // In a Legion worktree, what `git commit` needs of the repository (sandbox-git.ts); nothing elsewhere.
  flags.push(...worktreeGitFlags(root));
  const home = homeOf(profile.env);
  const hidden = [...HIDDEN_HOME_LOCATIONS.map(({ path }) => join(home, path)), legionConfigFolder(profile.env)];
  for (const location of hidden) {
    const real = existing(location);
    if (real === undefined || isInside(root, real)) continue;
    if (statSync(real).isDirectory()) flags.push('--tmpfs', real);
    else flags.push('--dev-bind', '/dev/null', real);
  }
  // Last, over whatever covers its folder: its own socket only (another allow-list's may be beside it), read-only, which still lets it connect.
  if (profile.proxy) flags.push('--tmpfs', dirname(profile.proxy.socket), '--ro-bind', profile.proxy.socket, profile.proxy.socket);
  flags.push('--chdir', existing(profile.cwd) ?? profile.cwd);
  return flags;
}

/** Every hidden location as configured here, with why (for `legion doctor` and the docs): what exists is hidden. */
export function hiddenLocations(env: NodeJS.ProcessEnv): Array<{ path: string; why: string; exists: boolean }> {
  const home = homeOf(env);
  return [
    ...HIDDEN_SYSTEM_LOCATIONS,
    ...HIDDEN_HOME_LOCATIONS.map(({ path, why }) => ({ path: join(home, path), why })),
    { path: legionConfigFolder(env), why: "Legion's global config: provider API keys" },
  ].map((location) => ({ ...location, exists: existsSync(location.path) }));
}
