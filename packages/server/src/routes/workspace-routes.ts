import type { Hono } from 'hono';
import type { Legion, Participant as CoreParticipant } from '@legion-collective/core';
import { ApiError } from '../api-error.js';
import { redactConfig } from '../redact-config.js';
import type { ServerContext } from '../server-context.js';
import type { Participant } from '../wire/participants.js';
import { jsonRoute } from './define-routes.js';

/** Whom a participant may `communicate` with (its delegation permission over the active roster). */
function delegatesTo(participant: CoreParticipant, roster: readonly CoreParticipant[]): string[] {
  if (participant.type !== 'agent') return [];
  const permission = participant.delegation;
  const others = roster.filter((other) => other.id !== participant.id).map((other) => other.id);
  if (permission === 'all') return others;
  if (permission === 'none') return [];
  return others.filter((id) => permission.includes(id));
}

/** The tools each agent's model is shown; asked once per agent (it starts MCP servers), again after tools change. */
class VisibleTools {
  private readonly known = new Map<string, Promise<string[]>>();
  constructor(private readonly legion: Legion) {
    const forget = (): void => this.known.clear();
    legion.events.on('tool:register', forget);
    legion.events.on('tool:unregister', forget);
  }
  of(agentId: string): Promise<string[]> {
    let names = this.known.get(agentId);
    if (!names) {
      names = this.legion.describeTools(agentId).then((view) => view.tools.filter((tool) => tool.visible).map((tool) => tool.name));
      names.catch(() => this.known.delete(agentId));
      this.known.set(agentId, names);
    }
    return names;
  }
}

export function workspaceRoutes(app: Hono, server: ServerContext, env: NodeJS.ProcessEnv): void {
  const { legion } = server;
  const visibleTools = new VisibleTools(legion);
  const entryAgent = (): string | null => {
    try {
      return legion.collective.agents().length > 0 ? legion.entryAgentId() : null;
    } catch {
      return null;
    }
  };

  jsonRoute(app, server, 'workspace', async () => {
    const latest = await legion.sessions.latest();
    return {
      root: legion.paths.root,
      entryAgent: entryAgent(),
      user: legion.collective.defaultUser()?.id ?? null,
      version: server.version,
      sessionId: latest?.id ?? null,
    };
  });

  jsonRoute(app, server, 'config', async () => redactConfig(legion.config, env));

  jsonRoute(app, server, 'claims', async () => ({ claims: await legion.listFileClaims() }));

  jsonRoute(app, server, 'releaseClaim', async (_server, { body }) => ({ released: await legion.releaseFileClaim(body.path) }));

  jsonRoute(app, server, 'participants', async () => {
    const roster = legion.collective.list().filter((participant) => participant.status !== 'retired');
    const entry = entryAgent();
    const participants: Participant[] = [];
    for (const participant of roster) {
      const state = server.states.get(participant.id);
      const model = participant.type === 'agent' ? (participant.model ?? legion.config.defaultModel) : undefined;
      participants.push({
        id: participant.id,
        type: participant.type,
        name: participant.name,
        ...(participant.description ? { description: participant.description } : {}),
        ...(participant.useFor !== undefined ? { useFor: participant.useFor } : {}),
        ...(model ? { model: { provider: model.provider, model: model.model } } : {}),
        tools: participant.type === 'agent' ? await visibleTools.of(participant.id) : [],
        delegatesTo: delegatesTo(participant, roster),
        entry: participant.id === entry,
        state: state.state,
        ...(state.detail !== undefined ? { detail: state.detail } : {}),
        ...(state.askedBy !== undefined ? { askedBy: state.askedBy } : {}),
        ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
        ...(state.conversationId !== undefined ? { conversationId: state.conversationId } : {}),
        ...(state.outcome !== undefined ? { outcome: state.outcome } : {}),
        ...(state.code !== undefined ? { code: state.code } : {}),
      });
    }
    return { participants };
  });

  jsonRoute(app, server, 'tools', async (_server, { query }) => {
    const agent = query.agent ?? entryAgent();
    if (!agent)
      throw new ApiError(
        400,
        'bad_request',
        'The collective has no agent to describe the tools of: add one (legion agents add), or name one with ?agent=ID.',
      );
    if (!legion.collective.get(agent))
      throw new ApiError(404, 'not_found', `No participant "${agent}". Known participants: ${legion.collective.ids().join(', ')}.`);
    const view = await legion.describeTools(agent);
    return {
      agent: view.agent,
      tools: view.tools.map((tool) => ({
        name: tool.name,
        source: tool.source,
        description: tool.description,
        effect: tool.effect,
        visible: tool.visible,
        ...(tool.hiddenBecause !== undefined ? { hiddenBecause: tool.hiddenBecause } : {}),
        approval: tool.approval,
        ...(tool.schemaTokens !== undefined ? { schemaTokens: tool.schemaTokens } : {}),
        ...(tool.offered !== undefined ? { offered: tool.offered } : {}),
      })),
      missing: view.missing.map((missing) => ({ pattern: missing.pattern, source: missing.source, reason: missing.reason })),
    };
  });
}
