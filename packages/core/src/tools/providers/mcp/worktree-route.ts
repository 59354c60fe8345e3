import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { McpServerConfig } from '../../../team/index.js';
import { sandboxSupport } from '../../child-processes/sandbox.js';
import type { SandboxProfile } from '../../child-processes/sandbox-profile.js';

/**
 * Where a call an isolated turn (one working in a git worktree) makes to an MCP server goes:
 * - `main`: the server Legion already runs; it cannot reach this machine's files (a URL on another host).
 * - `worktree`: an instance of the server of the worktree's own, started in it and confined to it by
 *   the OS sandbox: cwd in the tree, any argument or cwd naming the workspace renamed to the tree,
 *   writes only under the tree (the host's network kept: the server may need it, and isolation is
 *   about files). What it writes is part of the turn's change, reviewed with the rest.
 * - `refused`: it could write the main tree and nothing here can stop it (a server on this
 *   machine's loopback; a stdio server where the sandbox cannot work). Never run silently in the
 *   main tree: the result says why, and the agent works with its own tools instead.
 */
export type WorktreeRoute =
  { kind: 'main' } | { kind: 'worktree'; config: McpServerConfig; sandbox: SandboxProfile } | { kind: 'refused'; error: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0']);

export function worktreeRoute(
  server: string,
  config: McpServerConfig,
  place: { workspaceRoot: string; treeRoot: string; env: NodeJS.ProcessEnv },
): WorktreeRoute {
  if (config.url !== undefined) {
    const host = new URL(config.url).hostname.toLowerCase();
    if (!LOOPBACK_HOSTS.has(host) && !host.startsWith('127.') && !host.endsWith('.localhost')) return { kind: 'main' };
    return {
      kind: 'refused',
      error: `MCP server "${server}" runs on this machine (${config.url}) and may write the main tree, which an agent working in an isolated worktree must not change; Legion cannot confine a server it did not start, so the call is refused. Use your own file and shell tools: they work in your worktree.`,
    };
  }
  const support = sandboxSupport();
  if (!support.works)
    return {
      kind: 'refused',
      error: `MCP server "${server}" would run outside any sandbox and could write the main tree, which an agent working in an isolated worktree must not change: ${support.reason}. The call is refused; use your own file and shell tools, which work in your worktree.`,
    };
  const moved = (value: string): string => {
    const inside = relative(place.workspaceRoot, value);
    const isInside = isAbsolute(value) && (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside)));
    return isInside ? resolve(place.treeRoot, inside) : value;
  };
  const moves = { ...config, ...(config.args ? { args: config.args.map(moved) } : {}), ...(config.cwd ? { cwd: moved(config.cwd) } : {}) };
  return {
    kind: 'worktree',
    config: moves,
    sandbox: { root: place.treeRoot, cwd: resolve(place.treeRoot, moves.cwd ?? '.'), network: true, env: place.env },
  };
}
