import { Legion, LegionError, type Session } from '@legion-collective/core';
import { conversationId } from '@legion-collective/core/internal';
import { compactionLine } from '../render/compaction-line.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout } from '../render/terminal-text.js';

interface CompactOptions {
  workspace?: string;
  session?: string;
  to?: string;
  conversation?: string;
  json?: boolean;
}

/**
 * `legion compact [--session ID] [--to AGENT | --conversation ID]`: summarizes the
 * older part of an agent's context now, as it would be when its window fills up.
 * Refused while a turn runs in the conversation.
 */
export async function compactCommand(options: CompactOptions): Promise<number> {
  if (options.to !== undefined && options.conversation !== undefined) {
    throw new LegionError(
      'usage',
      'Give --to AGENT or --conversation ID, not both: --to picks your conversation with that agent, --conversation names any conversation.',
    );
  }
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session: Session | undefined =
      options.session !== undefined ? await legion.sessions.get(options.session) : await legion.sessions.latest();
    if (!session)
      throw new LegionError('no_session', 'There are no sessions yet, so there is nothing to compact. Start one with: legion run "hello"');
    const id = options.conversation ?? defaultConversation(legion, options.to);
    const existing = (await session.listConversations()).map((ref) => ref.conversationId);
    if (!existing.includes(id)) {
      throw new LegionError(
        'no_conversation',
        `Session ${session.id} has no conversation "${id}". ${existing.length ? `Its conversations: ${existing.join(', ')}.` : 'It has no conversations yet.'}`,
      );
    }
    const outcome = await session.compact(id, { reason: 'manual' });
    if (options.json) stdout.json({ sessionId: session.id, conversationId: id, ...outcome });
    else stdout.write(`${compactionLine(id, outcome)}\n`);
    return 0;
  } finally {
    await legion.close();
  }
}

/** Your conversation with `to` (default: the entry agent). */
function defaultConversation(legion: Legion, to: string | undefined): string {
  const user = legion.collective.defaultUser()?.id;
  if (!user)
    throw new LegionError(
      'no_user',
      'The collective has no user participant: name the conversation with --conversation ID (for example coordinator__developer).',
    );
  const agent = to ?? legion.entryAgentId();
  legion.collective.require(agent);
  return conversationId({ initiator: user, responder: agent });
}
