import type { Limits, Participant, Permission, Policies, PolicyMode, PolicyRule, ToolPolicy } from '../../../team/index.js';
import { isDeepStrictEqual } from 'node:util';

/**
 * What a model may do to the collective without gaining authority a person
 * did not give it. Each function takes out what would widen authority and
 * says why, for the tool result ("Refused: …").
 */

/**
 * An agent-made agent never approves: authority to approve is a person's to
 * give, and an approver made by a model (from a template that holds
 * `approvalAuthority`, with instructions of the model's) would approve the
 * model's own calls.
 */
export function withoutApprovalAuthority(fields: Record<string, unknown>, source: string): string | undefined {
  const authority = fields['approvalAuthority'];
  delete fields['approvalAuthority'];
  if (authority === undefined || authority === 'none') return undefined;
  return `approvalAuthority from ${source} (an agent cannot make an approver; a person sets approval authority in the participant file)`;
}

/**
 * A template's policies, keeping what restricts (`deny`, `requires_approval`)
 * and taking out what lets calls run without asking (`auto`): a deny is never
 * lost, and no model-made agent runs more without asking than the workspace
 * allows.
 */
export function restrictiveOnly(
  policies: Policies | undefined,
  source: string,
): { policies: Policies | undefined; refused: string | undefined } {
  if (policies === undefined) return { policies: undefined, refused: undefined };
  const kept: Policies = {};
  const dropped: string[] = [];
  for (const [pattern, policy] of Object.entries(policies)) {
    const limited = restrictivePolicy(policy);
    if (limited.dropped) dropped.push(pattern);
    if (limited.policy !== undefined) kept[pattern] = limited.policy;
  }
  return {
    policies: Object.keys(kept).length > 0 ? kept : undefined,
    refused:
      dropped.length === 0
        ? undefined
        : `policies from ${source}: "auto" for ${dropped.map((pattern) => JSON.stringify(pattern)).join(', ')} (an agent cannot give another calls that run without asking; its deny and requires_approval rules are kept)`,
  };
}

function restrictivePolicy(policy: ToolPolicy): { policy: ToolPolicy | undefined; dropped: boolean } {
  if (typeof policy === 'string') return policy === 'auto' ? { policy: undefined, dropped: true } : { policy, dropped: false };
  // Dropping an `auto` rule only lets later (restrictive) rules or the next layer decide: never more than before.
  const rules: PolicyRule[] = policy.rules.filter((rule) => rule.mode !== 'auto');
  const dropped = rules.length < policy.rules.length || policy.mode === 'auto';
  const mode = policy.mode === 'auto' ? undefined : policy.mode;
  if (rules.length === 0 && mode === undefined) return { policy: undefined, dropped };
  return {
    policy: { ...(mode !== undefined ? { mode } : {}), rules, ...(policy.reason !== undefined ? { reason: policy.reason } : {}) },
    dropped,
  };
}

/**
 * The most of each limit an agent may give: the workspace's, or its own where
 * a person (or a model) set it lower. Every limit bounds work (steps, depth,
 * parallel delegates, time, bytes), so a higher value is more than a person
 * allowed.
 */
export function limitBounds(workspace: Limits, caller: Partial<Limits> | undefined): Partial<Limits> {
  const bounds: Partial<Limits> = { ...workspace };
  for (const [name, own] of Object.entries(caller ?? {}) as Array<[keyof Limits, number | undefined]>) {
    const bound = bounds[name];
    if (own !== undefined && (bound === undefined ? name === 'maxSessionCostUsd' || name === 'maxSessionTokens' : own < bound))
      bounds[name] = own;
  }
  return bounds;
}

/** The caller's limits that are lower than the workspace's: what an agent it makes starts with. */
export function inheritedLimits(workspace: Limits, caller: Partial<Limits> | undefined): Partial<Limits> {
  const bounds = limitBounds(workspace, caller);
  return Object.fromEntries(Object.entries(bounds).filter(([name, value]) => value !== workspace[name as keyof Limits])) as Partial<Limits>;
}

/** Limits a model writes, each at most its bound (`limitBounds`). */
export function limitsWithin(
  asked: Partial<Limits> | null | undefined,
  bounds: Partial<Limits>,
): { limits: Partial<Limits> | null | undefined; refused: string | undefined } {
  if (asked === null || asked === undefined) return { limits: asked, refused: undefined };
  const limits: Partial<Limits> = {};
  const raised: string[] = [];
  for (const [name, value] of Object.entries(asked) as Array<[keyof Limits, number | undefined]>) {
    if (value === undefined) continue;
    const bound = bounds[name];
    if (bound !== undefined && value > bound) raised.push(`${name} ${value} (more than ${bound})`);
    else limits[name] = value;
  }
  return {
    limits,
    refused:
      raised.length === 0
        ? undefined
        : `limits ${raised.join(', ')} (an agent can give at most the workspace's limits, or its own where they are lower; a person can raise them in the participant file)`,
  };
}

/**
 * A participant's restrictive policies (`deny`, `requires_approval`) merged
 * into another's: what an agent makes or changes is held to the caller's
 * restrictions, so a tool denied to the caller is denied to its creations.
 * Where both set the same tool with rules, every deny rule comes first: a
 * deny is never shadowed, at the cost of an exception of the other's.
 */
export function withRestrictions(policies: Policies | undefined, restrictions: Policies | undefined): Policies | undefined {
  const merged: Policies = { ...policies };
  for (const [pattern, policy] of Object.entries(restrictions ?? {})) {
    const current = merged[pattern];
    merged[pattern] = current === undefined ? policy : combine(current, policy);
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function combine(first: ToolPolicy, second: ToolPolicy): ToolPolicy {
  if (first === 'deny' || second === 'deny') return 'deny';
  if (isDeepStrictEqual(first, second)) return first;
  const [a, b] = [asObject(first), asObject(second)];
  const all = [...a.rules, ...b.rules].filter((rule, index, list) => list.findIndex((other) => isDeepStrictEqual(other, rule)) === index);
  const rules = [...all.filter((rule) => rule.mode === 'deny'), ...all.filter((rule) => rule.mode !== 'deny')];
  const mode = MODE_RANK[a.mode ?? 'none'] >= MODE_RANK[b.mode ?? 'none'] ? a.mode : b.mode;
  const reason = a.reason ?? b.reason;
  return { ...(mode !== undefined ? { mode } : {}), rules, ...(reason !== undefined ? { reason } : {}) };
}

const MODE_RANK = { deny: 3, requires_approval: 2, auto: 1, none: 0 } as const;

function asObject(policy: ToolPolicy): { mode?: PolicyMode | undefined; rules: PolicyRule[]; reason?: string | undefined } {
  return typeof policy === 'string' ? { mode: policy, rules: [] } : policy;
}

/** The restrictive part of a participant's policies (nothing for a user or mock). */
export function restrictionsOf(participant: Participant): Policies | undefined {
  return participant.type === 'agent' ? restrictiveOnly(participant.policies, '').policies : undefined;
}

/**
 * Why an agent may not change this agent, or nothing. Only a person changes
 * an agent that approves (itself included: an approver told by a worker to
 * rewrite its own instructions is the attack). Another agent may be changed
 * only if it holds nothing the caller lacks: no calls that run without
 * asking, the caller's restrictive policies, tools, delegation and limits
 * within the caller's. Otherwise rewriting its instructions would borrow
 * authority the caller was not given.
 */
export function modifyRefusal(caller: Participant | undefined, target: Participant, workspaceLimits: Limits): string | undefined {
  if (caller?.type !== 'agent') return undefined;
  if (target.approvalAuthority !== undefined && target.approvalAuthority !== 'none') {
    return `${target.id} holds approval authority, and only a person may change an agent that approves (in its participant file)`;
  }
  if (target.id === caller.id || target.type !== 'agent') return undefined;
  const beyond: string[] = [];
  if (target.policies && Object.values(target.policies).some(allowsWithoutAsking))
    beyond.push('policies that let calls run without asking');
  // A restriction the target lacks is one that merging it in would change.
  const missing = Object.entries(restrictionsOf(caller) ?? {})
    .filter(
      ([pattern, policy]) =>
        !isDeepStrictEqual(withRestrictions(target.policies, { [pattern]: policy })?.[pattern], target.policies?.[pattern]),
    )
    .map(([pattern]) => pattern);
  const bounds = limitBounds(workspaceLimits, caller.limits);
  const higher = Object.entries(target.limits ?? {}).filter(([name, value]) => {
    const bound = bounds[name as keyof Limits];
    return value !== undefined && bound !== undefined && value > bound;
  });
  if (higher.length > 0) beyond.push(`limits ${higher.map(([name, value]) => `${name} ${value}`).join(', ')} above yours`);
  if (missing.length > 0)
    beyond.push(`no policies for ${missing.map((pattern) => JSON.stringify(pattern)).join(', ')} as restrictive as yours`);
  if (!permissionWithin(target.tools, caller.tools))
    beyond.push(`tools ${describe(target.tools)} beyond yours (${describe(caller.tools)})`);
  if (!permissionWithin(target.delegation, caller.delegation, [caller.id]))
    beyond.push(`delegation ${describe(target.delegation)} beyond yours (${describe(caller.delegation)})`);
  if (beyond.length === 0) return undefined;
  return `${target.id} holds ${beyond.join(' and ')}; an agent may change only itself or an agent that holds no more than it does. A person can change it in its participant file`;
}

function allowsWithoutAsking(policy: ToolPolicy): boolean {
  return typeof policy === 'string' ? policy === 'auto' : policy.mode === 'auto' || policy.rules.some((rule) => rule.mode === 'auto');
}

function permissionWithin(held: Permission, own: Permission, alwaysAllowed: readonly string[] = []): boolean {
  if (held === 'none' || own === 'all') return true;
  if (held === 'all') return false;
  const ownList = own === 'none' ? [] : own;
  return held.every((entry) => ownList.includes(entry) || alwaysAllowed.includes(entry));
}

function describe(permission: Permission): string {
  return typeof permission === 'string' ? `"${permission}"` : `[${permission.join(', ')}]`;
}
