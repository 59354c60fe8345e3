import type { Collective, Limits, ModelConfig, Participant, Permission, Policies } from '../../../team/index.js';
import {
  inheritedLimits,
  limitBounds,
  limitsWithin,
  restrictionsOf,
  restrictiveOnly,
  withRestrictions,
  withoutApprovalAuthority,
} from './agent-authority.js';

/** What an agent asked to give another agent, after what it may not give was taken out. */
export interface LimitedGrant {
  fields: Record<string, unknown>;
  /** One line per refused field or entry, for the tool result. */
  refused: string[];
}

/**
 * An agent may give another agent only what it has itself: tools and
 * delegation within its own, and a model endpoint the collective already uses
 * for that provider (a new `baseURL` would receive the provider's key).
 * Fields left out default to the caller's own tools and delegation, never to
 * "all". What a template brings is limited too: no approval authority, no
 * policy that lets calls run without asking (its denies stay); the caller's
 * own denies and asks are added. Limits are at most the workspace's and the
 * caller's own. Users are not limited: they own the collective.
 */
export function limitGrant(
  collective: Collective,
  caller: Participant | undefined,
  fields: Record<string, unknown>,
  options: { creating: boolean; workspaceLimits: Limits; template?: string | undefined },
): LimitedGrant {
  if (!caller || caller.type !== 'agent') return { fields, refused: [] };
  const result: Record<string, unknown> = { ...fields };
  const refused: string[] = [];
  // Only a template brings these (the tools refuse them from the model); the template is a person's, its use the model's.
  const source = options.template === undefined ? 'the input' : `template ${options.template}`;
  const authority = withoutApprovalAuthority(result, source);
  if (authority) refused.push(authority);
  if (result['policies'] !== undefined) {
    const policies = restrictiveOnly(result['policies'] as Policies, source);
    if (policies.policies === undefined) delete result['policies'];
    else result['policies'] = policies.policies;
    if (policies.refused) refused.push(policies.refused);
  }
  if (options.creating) {
    // What is denied to (or asks for) the creator is denied to (or asks for) what it makes.
    const policies = withRestrictions(result['policies'] as Policies | undefined, restrictionsOf(caller));
    if (policies === undefined) delete result['policies'];
    else result['policies'] = policies;
  }
  // Limits are at most the caller's: what it writes is bounded, and what it leaves out (or removes) of a limit
  // the caller itself is held below the workspace's is that lower value, not the workspace's.
  const inherited = inheritedLimits(options.workspaceLimits, caller.limits);
  const asked = fields['limits'] as Partial<Limits> | null | undefined;
  if (asked !== undefined || options.creating) {
    const limits = limitsWithin(asked, limitBounds(options.workspaceLimits, caller.limits));
    if (limits.refused) refused.push(limits.refused);
    const written = limits.limits;
    const given =
      written === null || written === undefined ? (Object.keys(inherited).length > 0 ? inherited : written) : { ...inherited, ...written };
    // Nothing left of what was asked: the field keeps its value (a change) or is left out (a new agent).
    if (written !== null && written !== undefined && Object.keys(written).length === 0 && !options.creating) delete result['limits'];
    else if (given === undefined || (given !== null && Object.keys(given).length === 0)) delete result['limits'];
    else result['limits'] = given;
  }
  for (const name of ['tools', 'delegation'] as const) {
    const own = caller[name];
    const asked = fields[name] as Permission | undefined;
    if (asked === undefined) {
      if (options.creating) result[name] = own;
      continue;
    }
    const limited = withinPermission(asked, own, name === 'delegation' ? [caller.id] : []);
    if (limited.refused.length > 0) {
      refused.push(
        `${name} ${limited.refused.map((entry) => JSON.stringify(entry)).join(', ')} (yours are ${describePermission(own)}; an agent can give only what it has)`,
      );
    }
    // Nothing left of a change: the field keeps its value rather than becoming an empty list.
    if (!options.creating && Array.isArray(limited.permission) && limited.permission.length === 0 && asked !== 'none' && asked.length > 0)
      delete result[name];
    else result[name] = limited.permission;
  }
  const model = fields['model'] as ModelConfig | null | undefined;
  if (model?.baseURL !== undefined && !knownEndpoint(collective, model.provider, model.baseURL)) {
    delete result['model'];
    refused.push(
      `model (${model.provider} at ${originOf(model.baseURL)} is not an endpoint this collective already uses for ${model.provider}; ` +
        `it would receive the provider's key. A person can set it in the participant file)`,
    );
  }
  return { fields: result, refused };
}

function withinPermission(
  asked: Permission,
  own: Permission,
  alwaysAllowed: readonly string[],
): { permission: Permission; refused: string[] } {
  if (asked === 'none' || own === 'all') return { permission: asked, refused: [] };
  if (asked === 'all') return { permission: own === 'none' ? 'none' : [...own], refused: ['all'] };
  const ownList = own === 'none' ? [] : own;
  // Exact entries only: a glob is given only if the caller holds that same glob, so it cannot reach tools the caller never had.
  const kept = asked.filter((entry) => ownList.includes(entry) || alwaysAllowed.includes(entry));
  return { permission: kept, refused: asked.filter((entry) => !kept.includes(entry)) };
}

function describePermission(permission: Permission): string {
  return typeof permission === 'string' ? `"${permission}"` : `[${permission.join(', ')}]`;
}

/** Whether some agent already uses this provider at this origin (so its key already goes there). */
function knownEndpoint(collective: Collective, provider: string, baseURL: string): boolean {
  const origin = originOf(baseURL);
  return collective
    .agents()
    .some((agent) => agent.model?.provider === provider && agent.model.baseURL !== undefined && originOf(agent.model.baseURL) === origin);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
