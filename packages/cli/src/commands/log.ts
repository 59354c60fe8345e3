import {
  followWorkspace,
  Legion,
  LegionError,
  type ClaimConflictRecord,
  type LegionEvent,
  type Message,
  type Session,
} from '@legion-collective/core';
import { parseConversationId } from '@legion-collective/core/internal';
import { describeClaimConflict } from '../render/claim-lines.js';
import { authorOf, renderMessage, renderMessages } from '../render/message-lines.js';
import { markdownEnabled, styleFor, type Style } from '../render/style.js';
import type { MessageLineOptions } from '../render/message-lines.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inert, inertLine } from '../render/terminal-text.js';

interface LogOptions {
  workspace?: string;
  session?: string;
  follow?: boolean;
  json?: boolean;
  limit?: string;
}

/** CONVERSATION as given: a full id (`user__coordinator`, `a__b__name`), or a participant the default user talks to. */
function conversationIdOf(given: string | undefined, legion: Legion): string {
  const user = legion.collective.defaultUser()?.id;
  if (given === undefined) {
    if (!user)
      throw new LegionError(
        'no_user',
        'The collective has no user participant, so there is no default conversation: name one (legion log a__b).',
      );
    return `${user}__${legion.entryAgentId()}`;
  }
  if (given.includes('__')) return given;
  if (!user)
    throw new LegionError('no_user', `The collective has no user participant: name the whole conversation (for example ${given}__other).`);
  return `${user}__${given}`;
}

/**
 * `legion log [--session ID] [CONVERSATION]`: a conversation's messages, tool
 * calls collapsed to one line each, with the session's refused writes (claim
 * conflicts, from any process) where they happened; `--follow` keeps printing
 * what other processes append until Ctrl-C; `--json` prints one JSON object per
 * message (and no conflicts: its lines stay one shape).
 */
export async function logCommand(given: string | undefined, options: LogOptions): Promise<number> {
  const limit = options.limit === undefined ? 200 : Number(options.limit);
  if (!Number.isInteger(limit) || limit <= 0)
    throw new LegionError('usage', `--limit takes a positive whole number of messages, got "${options.limit}".`);
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session: Session | undefined =
      options.session !== undefined ? await legion.sessions.get(options.session) : await legion.sessions.latest();
    if (!session)
      throw new LegionError('no_session', 'There are no sessions yet, so there is nothing to show. Start one with: legion run "hello"');
    const id = conversationIdOf(given, legion);
    const key = parseConversationId(id);
    const existing = (await session.listConversations()).map((ref) => ref.conversationId);
    if (!existing.includes(id) && !options.follow) {
      throw new LegionError(
        'no_conversation',
        `Session ${session.id} has no conversation "${id}". ${existing.length ? `Its conversations: ${existing.join(', ')}.` : 'It has no conversations yet.'} (Or wait for it to start: legion log --follow ${id})`,
      );
    }
    const style = styleFor(process.stdout);
    // Indented by two under each message's header.
    const markdown = !options.json && markdownEnabled(process.stdout) ? await markdownFor(style, (process.stdout.columns || 80) - 2) : {};
    const who = { initiator: key.initiator, responder: key.responder };
    const printJson = (message: Message): void => {
      stdout.json({ sessionId: following, conversationId: id, author: authorOf(message, key.initiator, key.responder), message });
    };

    // Follow first, then read the history: an append between the two is in one of them, and printed once.
    const arrived: Message[] = [];
    let live: ((message: Message) => void) | undefined;
    let stopFollowing: (() => void) | undefined;
    // Without --session, the workspace's latest session is followed: when a process starts a new one,
    // the log moves to it (and says so), as `legion run` moves on to it.
    let following = session.id;
    const conflictsArrived: ClaimConflictRecord[] = [];
    let liveConflict: ((conflict: ClaimConflictRecord) => void) | undefined;
    if (options.follow) {
      legion.events.on('claim:conflict', (event) => {
        if (event.sessionId !== following) return;
        const {
          sessionId: _session,
          initiator: _initiator,
          responder: _responder,
          name: _name,
          remote: _remote,
          conflictId,
          ...rest
        } = event;
        const conflict: ClaimConflictRecord = { kind: 'conflict', version: 1, id: conflictId, ...rest };
        if (liveConflict) liveConflict(conflict);
        else conflictsArrived.push(conflict);
      });
      legion.events.on('message:sent', (event: Extract<LegionEvent, { type: 'message:sent' }>) => {
        if (event.conversationId !== id || event.sessionId !== following) return;
        if (live) live(event.message);
        else arrived.push(event.message);
      });
      if (options.session !== undefined) stopFollowing = await legion.follow(session);
      else {
        const workspace = await followWorkspace(legion, {
          onSession: (started) => {
            if (started.sessionId === following) return;
            following = started.sessionId;
            stderr.write(
              styleFor(process.stderr).dim(
                `following ${id} in the new session ${inertLine(started.sessionId)}${started.title ? ` (${inertLine(started.title)})` : ''}; --session keeps to one\n`,
              ),
            );
          },
        });
        stopFollowing = workspace;
      }
    }
    const history = existing.includes(id) ? await session.conversation(key).recent(limit) : [];
    const seen = new Set(history.map((message) => message.id));
    // The conflicts of the time the history covers (all of them when it is empty and followed).
    const firstAt = history[0]?.at;
    const conflicts = options.json
      ? []
      : (await session.claimConflicts()).filter((conflict) => firstAt === undefined || conflict.at >= firstAt);
    const shownConflicts = new Set(conflicts.map((conflict) => conflict.id));
    const conflictLine = (conflict: ClaimConflictRecord): string => style.yellow(describeClaimConflict(conflict));
    if (options.json) for (const message of history) printJson(message);
    else {
      const lines = interleave(history, conflicts, (messages) => renderMessages(messages, who, style, markdown, history), conflictLine);
      if (lines.length > 0) stdout.write(`${lines.join('\n')}\n`);
      else if (!options.follow) stdout.write(style.dim('No messages yet.\n'));
    }
    for (const warning of legion.warnings) stderr.write(`warning: ${inert(warning)}\n`);
    if (!options.follow) return 0;

    // Live: a call is shown when it is made, its result on its own line when it comes.
    const shownCalls = new Set<string>();
    for (const message of history) for (const block of message.content) if (block.type === 'tool_use') shownCalls.add(block.id);
    live = (message: Message): void => {
      if (seen.has(message.id)) return;
      seen.add(message.id);
      if (options.json) return printJson(message);
      const lines = renderMessage(message, who, style, () => undefined, shownCalls, markdown);
      for (const block of message.content) if (block.type === 'tool_use') shownCalls.add(block.id);
      if (lines.length > 0) stdout.write(`${lines.join('\n')}\n`);
    };
    liveConflict = (conflict: ClaimConflictRecord): void => {
      if (options.json || shownConflicts.has(conflict.id)) return;
      shownConflicts.add(conflict.id);
      stdout.write(`${conflictLine(conflict)}\n`);
    };
    for (const conflict of conflictsArrived.splice(0)) liveConflict(conflict);
    for (const message of arrived.splice(0)) live(message);
    stderr.write(styleFor(process.stderr).dim(`following ${id} in session ${session.id}; Ctrl-C to stop\n`));
    // The follower's watchers do not keep a process alive on their own; following is this command's whole job.
    const keepAlive = setInterval(() => {}, 1 << 30);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    clearInterval(keepAlive);
    stopFollowing?.();
    return 0;
  } finally {
    await legion.close();
  }
}

/**
 * The messages' lines with each conflict's line before the first message written after it: runs of
 * messages between conflicts, each rendered with the whole history's results in view (`render`),
 * so a call before a conflict still shows the result that came after it.
 */
function interleave(
  messages: readonly Message[],
  conflicts: readonly ClaimConflictRecord[],
  render: (messages: readonly Message[]) => string[],
  conflictLine: (conflict: ClaimConflictRecord) => string,
): string[] {
  if (conflicts.length === 0) return render(messages);
  const lines: string[] = [];
  let from = 0;
  for (const conflict of conflicts) {
    let to = from;
    while (to < messages.length && messages[to]!.at <= conflict.at) to++;
    lines.push(...render(messages.slice(from, to)), conflictLine(conflict));
    from = to;
  }
  lines.push(...render(messages.slice(from)));
  return lines;
}

/** Loaded only on a terminal that shows markdown: piped output never reads the renderer. */
async function markdownFor(style: Style, width: number): Promise<MessageLineOptions> {
  const { markdownLines } = await import('../render/markdown.js');
  return { markdown: (text) => markdownLines(text, width, style) };
}
