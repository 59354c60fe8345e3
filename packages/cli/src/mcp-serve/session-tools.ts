import { textOf, toolResultsOf, toolUsesOf, type Message, type Session } from '@legion-collective/core';
import {
  conversationId,
  conversationsStartedBy,
  decisionReach,
  parseConversationId,
  sessionStartedBy,
  turnsOpenedBy,
  WHOLE_LOG,
  type StartedConversation,
} from '@legion-collective/core/internal';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sessionFor } from './ask-agent.js';
import { askToolName } from './exposed-agents.js';
import type { ServeContext } from './serve-context.js';
import { toolError, toolResult } from './tool-results.js';

export const NoInputSchema = z.object({}).strict();

export const ReadConversationInputSchema = z
  .object({
    session: z.string().min(1).optional().describe('The Legion session (default: the latest); see list_sessions'),
    conversationId: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A conversation by id, <initiator>__<responder>[__<name>] (coordinator__developer): yours, or one your asks delegated to; default: yours with the agent',
      ),
    agent: z.string().min(1).optional().describe('Your conversation with this agent (default: the first exposed agent)'),
    conversation: z.string().min(1).optional().describe('The name of your named conversation with the agent'),
    limit: z
      .number({ error: 'limit must be a number of messages, 1 to 100' })
      .int()
      .min(1)
      .max(100, 'limit is at most 100: page with offset')
      .default(20)
      .describe('Messages per page (newest last)'),
    offset: z
      .number({ error: 'offset must be a number of messages' })
      .int()
      .min(0)
      .default(0)
      .describe('How many of the newest messages to skip: the next page is the nextOffset of this one'),
  })
  .strict();

/** `list_participants`: the collective, and which agents this server lets you ask. */
export function listParticipants(context: ServeContext): CallToolResult {
  const exposed = new Set(context.exposed.map((agent) => agent.id));
  const participants = context.legion.collective.list().map((participant) => ({
    id: participant.id,
    type: participant.type,
    name: participant.name,
    description: participant.description,
    ...(participant.useFor !== undefined ? { useFor: participant.useFor } : {}),
    ...(exposed.has(participant.id) ? { askTool: askToolName(participant.id) } : {}),
  }));
  const lines = participants.map(
    (participant) =>
      `- ${participant.id} (${participant.type}): ${participant.description}${participant.askTool ? ` — ask with ${participant.askTool}` : ''}`,
  );
  return toolResult([`The collective (you are "${context.caller.id}"):`, ...lines].join('\n'), { you: context.caller.id, participants });
}

/**
 * Whether this MCP server's caller reads only its own work: a caller that stands in for the human
 * (or comes from config) sees the sessions and conversations its ask_<agent> calls started and the
 * delegations beneath them, never the human's own (`legion run`, the REPL, the browser), as it
 * decides only its own chains' approvals. A caller that is the human (`mcpServe.caller.id` set to
 * the human's id) sees everything.
 */
function ownWorkOnly(context: ServeContext): boolean {
  return decisionReach(context.caller, (id) => context.legion.collective.isCaller(id)) !== 'any';
}

/** `list_sessions`: the workspace's sessions the caller may read, most recently active first. */
export async function listSessions(context: ServeContext): Promise<CallToolResult> {
  const all = await context.legion.sessions.list();
  const sessions = [];
  for (const meta of all) {
    if (!ownWorkOnly(context) || (await sessionStartedBy(await context.legion.sessions.get(meta.id), context.caller.id)))
      sessions.push(meta);
  }
  const items = sessions.map((meta) => ({
    id: meta.id,
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    createdAt: meta.createdAt,
    lastActiveAt: meta.lastActiveAt,
  }));
  const text =
    items.length === 0
      ? 'No sessions of yours yet: the first ask_<agent> call starts one.'
      : items.map((item) => `- ${item.id}${item.title ? ` "${item.title}"` : ''} (last active ${item.lastActiveAt})`).join('\n');
  return toolResult(text, { sessions: items });
}

/** The conversations of a session the caller may read: all, or its own and those delegated beneath them (of a shared one, the turns its tree opened). */
async function readableConversations(context: ServeContext, session: Session): Promise<StartedConversation[]> {
  return ownWorkOnly(context)
    ? conversationsStartedBy(session, context.caller.id)
    : (await session.listConversations()).map((ref) => ({ ref }));
}

/** `read_conversation`: a page of a conversation's recent messages, newest last. */
export async function readConversation(context: ServeContext, input: z.infer<typeof ReadConversationInputSchema>): Promise<CallToolResult> {
  const opened = await sessionFor(context.legion, input.session);
  if ('refused' in opened) return opened.refused;
  const { session } = opened;
  let id: string;
  try {
    if (input.conversationId !== undefined) {
      if (input.agent !== undefined || input.conversation !== undefined)
        return toolError('Give either conversationId, or agent (and conversation), not both.');
      id = conversationId(parseConversationId(input.conversationId));
    } else {
      const agent = input.agent ?? context.exposed[0]?.id;
      if (agent === undefined)
        return toolError('Name the conversation: give conversationId (list_participants shows who is in the collective).');
      id = conversationId({ initiator: context.caller.id, responder: agent, name: input.conversation });
    }
  } catch (error) {
    return toolError(error instanceof Error ? error.message : String(error));
  }
  // What the caller may not read is, to it, not there (not even its id is named).
  const known = await readableConversations(context, session);
  const readable = known.find((candidate) => candidate.ref.conversationId === id);
  if (!readable) {
    return toolError(
      `Session ${session.id} has no conversation "${id}". It has: ${known.map((candidate) => candidate.ref.conversationId).join(', ') || 'none yet'}.`,
      { sessionId: session.id },
    );
  }
  const { ref, openings } = readable;
  const conversation = session.conversation(ref);
  // One more than the page: whether older messages remain. Of a conversation other chains went through too, only
  // the turns of the caller's tree, so the whole log is read and filtered before paging.
  const recent =
    openings === undefined
      ? await conversation.recent(input.offset + input.limit + 1)
      : turnsOpenedBy(await conversation.recent(WHOLE_LOG), openings);
  const end = Math.max(0, recent.length - input.offset);
  const start = Math.max(0, end - input.limit);
  const page = recent.slice(start, end).map((message) => view(message, ref.initiator, ref.responder));
  const more = start > 0;
  const text = [
    `${id} in session ${session.id}: ${page.length} message${page.length === 1 ? '' : 's'}${more ? ` (older ones: offset ${input.offset + page.length})` : ''}`,
    ...page.map((message) => `[${message.at}] ${message.author}: ${message.text}`),
  ].join('\n');
  return toolResult(text, {
    sessionId: session.id,
    conversationId: id,
    messages: page,
    ...(more ? { nextOffset: input.offset + page.length } : {}),
  });
}

function view(
  message: Message,
  initiator: string,
  responder: string,
): { id: string; at: string; role: string; author: string; text: string } {
  const results = toolResultsOf(message);
  const author = message.role === 'assistant' || results.length > 0 ? responder : initiator;
  const parts = [
    textOf(message),
    ...toolUsesOf(message).map((use) => `(calls ${use.name} ${JSON.stringify(use.input)})`),
    ...results.map((result) => `(${result.isError ? 'error' : 'result'}: ${result.content})`),
  ];
  return { id: message.id, at: message.at, role: message.role, author, text: parts.filter((part) => part.length > 0).join(' ') };
}
