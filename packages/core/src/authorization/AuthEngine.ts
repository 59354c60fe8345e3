import { isAbsolute, relative } from 'node:path';
import picomatch from 'picomatch';
import type { Participant } from '../collective/participant.js';
import type { Tool, ToolEffect } from '../tools/tool.js';
import type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './policy.js';

const DEFAULT_PATH_ARGUMENTS = ['path', 'paths', 'file', 'cwd', 'directory'];

/** Built-in defaults by effect: reads and messages run; anything that changes the world asks. */
export const DEFAULT_MODES: Record<ToolEffect, PolicyMode> = {
  read: 'auto',
  communicate: 'auto',
  write: 'requires_approval',
  shell: 'requires_approval',
  network: 'requires_approval',
  collective: 'requires_approval',
};

export interface AuthorizeInput {
  participant: Participant;
  tool: Tool;
  input: unknown;
  /** Tools this participant was granted "always allow" for in this session. */
  grants?: ReadonlySet<string>;
}

/**
 * Decides `auto | requires_approval | deny` for one tool call. Layers, most
 * specific first: the participant's policies, then the workspace's, then the
 * built-in default for the tool's effect. Within a layer an exact name beats a
 * glob, and a longer glob beats a shorter one. A deny from ANY matching policy
 * in any layer wins: no wildcard, grant or override can widen it.
 */
export class AuthEngine {
  constructor(
    private readonly workspacePolicies: Policies = {},
    private readonly workspaceRoot?: string,
  ) {}

  evaluate({ participant, tool, input, grants }: AuthorizeInput): PolicyDecision {
    const layers: Array<[string, Policies | undefined]> = [
      [`participant ${participant.id}`, 'policies' in participant ? participant.policies : undefined],
      ['workspace config', this.workspacePolicies],
    ];
    let chosen: PolicyDecision | undefined;
    for (const [layer, policies] of layers) {
      for (const [pattern, policy] of matchingPolicies(policies, tool.name)) {
        const decision = this.apply(policy, tool, input, `${layer} "${pattern}"`);
        if (!decision) continue;
        if (decision.mode === 'deny') return decision;
        chosen ??= decision;
      }
    }
    if (chosen) return grants?.has(tool.name) && chosen.mode === 'requires_approval' ? { mode: 'auto', reason: 'always allowed in this session', source: 'grant' } : chosen;
    const mode = DEFAULT_MODES[tool.effect ?? 'write'];
    if (mode === 'requires_approval' && grants?.has(tool.name)) return { mode: 'auto', reason: 'always allowed in this session', source: 'grant' };
    return { mode, reason: `${tool.effect ?? 'write'} tools ${mode === 'auto' ? 'run without asking' : 'need approval'} by default`, source: 'default' };
  }

  /** A policy's decision for this input, or undefined when it has rules only and none match. */
  private apply(policy: ToolPolicy, tool: Tool, input: unknown, source: string): PolicyDecision | undefined {
    if (typeof policy === 'string') return { mode: policy, reason: `set by ${source}`, source };
    for (const rule of policy.rules) {
      if (this.ruleMatches(rule, tool, input)) return { mode: rule.mode, reason: rule.reason ?? `a rule of ${source}`, source };
    }
    return policy.mode ? { mode: policy.mode, reason: policy.reason ?? `set by ${source}`, source } : undefined;
  }

  private ruleMatches(rule: PolicyRule, tool: Tool, input: unknown): boolean {
    const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    if (rule.paths) {
      const paths = (tool.pathArguments ?? DEFAULT_PATH_ARGUMENTS).flatMap((name) => {
        const value = args[name];
        return typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
      });
      if (paths.length === 0) return false;
      const matches = picomatch(rule.paths, { dot: true });
      if (!paths.every((path) => matches(this.normalise(path)))) return false;
    }
    for (const [name, pattern] of Object.entries(rule.args ?? {})) {
      const value = args[name];
      const text = typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value);
      if (text === undefined || !new RegExp(pattern).test(text)) return false;
    }
    return true;
  }

  private normalise(path: string): string {
    let result = path;
    if (isAbsolute(result) && this.workspaceRoot) result = relative(this.workspaceRoot, result);
    return result.replace(/^\.\/+/, '');
  }
}

/** Matching entries of one layer, most specific first: exact name, then globs by length. */
function matchingPolicies(policies: Policies | undefined, toolName: string): Array<[string, ToolPolicy]> {
  if (!policies) return [];
  const matches: Array<[string, ToolPolicy]> = [];
  for (const [pattern, policy] of Object.entries(policies)) {
    if (pattern === toolName || picomatch.isMatch(toolName, pattern, { dot: true })) matches.push([pattern, policy]);
  }
  return matches.sort(([a], [b]) => (a === toolName ? -1 : b === toolName ? 1 : b.length - a.length));
}

/** Whether a participant may approve this requester's use of this tool. */
export function canApprove(approver: Participant, requesterId: string, toolName: string): boolean {
  const authority: ApprovalAuthority = approver.approvalAuthority ?? (approver.type === 'user' ? '*' : 'none');
  if (authority === '*') return true;
  if (authority === 'none') return false;
  return authority.some((rule) => picomatch.isMatch(requesterId, rule.requester, { dot: true }) && rule.tools.some((tool) => picomatch.isMatch(toolName, tool, { dot: true })));
}
