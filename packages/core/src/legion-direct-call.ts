import { randomUUID } from 'node:crypto';
import { entryVisibility, type AuthEngine } from './authorization/index.js';
import type { Session, SessionStore } from './engine/index.js';
import type { EventBus } from './kernel/index.js';
import type { WorkspacePaths } from './store/index.js';
import type { Collective, ResolvedConfig } from './team/index.js';
import type { ToolExecutor, ToolRegistry } from './tools/index.js';

/** What a direct call reads of its Legion. */
export interface DirectCallParts {
  tools: ToolRegistry;
  executor: ToolExecutor;
  auth: AuthEngine;
  collective: Collective;
  sessions: SessionStore;
  events: EventBus;
  paths: WorkspacePaths;
  config: ResolvedConfig;
}

export interface DirectCallOptions {
  as?: string;
  session?: Session;
  signal?: AbortSignal;
  approved?: boolean;
}

export type DirectCallResult = { status: 'success'; content: string } | { status: 'error'; error: string };

/** `Legion.executeTool`: one tool called outside a turn, judged by the caller's policy as an agent's call is (see there). */
export async function callToolDirectly(
  legion: DirectCallParts,
  name: string,
  input: unknown,
  options: DirectCallOptions = {},
): Promise<DirectCallResult> {
  await legion.tools.ready();
  const tools = new Map(legion.tools.list().map((tool) => [tool.name, tool]));
  const toolUse = { type: 'tool_use' as const, id: `direct_${randomUUID().slice(0, 8)}`, name, input };
  const prepared = legion.executor.prepare(toolUse, tools);
  if (!prepared.ok) return { status: 'error', error: prepared.error };
  const callerId = options.as ?? legion.collective.defaultUser()?.id ?? 'program';
  const actor = legion.collective.get(callerId);
  // An unknown `as` would otherwise run as the program, past every policy: a typo must not lift a deny.
  if (options.as !== undefined && !actor) {
    const known =
      legion.collective
        .list()
        .map((participant) => participant.id)
        .join(', ') || '(none)';
    return {
      status: 'error',
      error: `${name} was not run: "${options.as}" (as) is no participant of this collective. Pass one of ${known}, or leave "as" out to run as the default user.`,
    };
  }
  if (actor) {
    const tool = prepared.call.tool;
    // The input as the tool will run it (schema defaults filled in, as an agent's call is judged): `{}` must not slip past a rule on the default path.
    const decision = legion.auth.evaluate({ participant: actor, tool, input: prepared.call.input });
    if (decision.mode === 'deny')
      return {
        status: 'error',
        error: `${name} is denied to ${callerId} (${decision.source}): ${decision.reason}. Change the policy in .legion/ to allow it.`,
      };
    if (decision.mode === 'requires_approval' && actor.type !== 'user' && options.approved !== true) {
      return {
        status: 'error',
        error: `${name} needs approval for ${callerId} (${decision.reason}): ask the user first and pass { approved: true }, or call it as the user.`,
      };
    }
  }
  const session = options.session ?? (await legion.sessions.resumeOrCreate());
  const outcomes = await legion.executor.run(
    [prepared.call],
    {
      callerId,
      frames: [],
      conversation: { sessionId: session.id, conversationId: `${callerId}__direct`, initiator: callerId, responder: callerId },
      session,
      signal: options.signal ?? new AbortController().signal,
      events: legion.events,
      workspaceRoot: legion.paths.root,
      // Listings and searches show what the caller may see (entry-visibility.ts); as the program, everything.
      visible: entryVisibility(legion.auth, actor),
    },
    legion.config.limits.toolTimeoutMs,
  );
  const outcome = outcomes.get(toolUse.id);
  if (outcome?.status !== 'done')
    return { status: 'error', error: `${name} is waiting on approvals: ${outcome?.requests.map((request) => request.id).join(', ')}` };
  return outcome.block.isError ? { status: 'error', error: outcome.block.content } : { status: 'success', content: outcome.block.content };
}
