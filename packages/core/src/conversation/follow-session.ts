import { ApprovalRecordSchema, type ApprovalRequestRecord } from '../storage/approval-records.js';
import type { ConversationRef } from '../events/event-types.js';
import type { EventBus } from '../events/EventBus.js';
import { FileLogFollower, type FollowCursor } from '../storage/FileLogFollower.js';
import type { WorkspacePaths } from '../storage/workspace-paths.js';
import { emitApprovalRecord } from './approval-events.js';
import { parseConversationId } from './conversation-id.js';
import type { Message } from '../message.js';

export interface FollowOptions {
  /**
   * `end` (default): only what is appended from now on becomes events; what
   * the logs already hold is history (`session.recentMessages`). A cursor from
   * an earlier follower's `cursor()`: everything appended after it, so a UI
   * that reconnects misses nothing.
   */
  from?: 'end' | FollowCursor | undefined;
  /** The poll behind change notifications (default 500 ms). */
  pollMs?: number | undefined;
}

/** Stops following when called. */
export type Follower = (() => void) & {
  readonly sessionId: string;
  /** Where the follower is in each conversation: pass it as `from` to continue there later. */
  cursor(): FollowCursor;
  /** Reads the logs now, without waiting for a notification or the poll. */
  check(): void;
};

/** This many ids of messages this process appended are remembered until the follower reads past them. */
const OWN_LIMIT = 10_000;

/**
 * Turns messages another process appends to a session's conversation logs
 * into `message:sent` events, and its approval requests and decisions into
 * `approval:requested` / `approval:decided`, all marked `remote`, on this
 * process's bus. What this process appended (it emitted those events itself)
 * is skipped.
 */
export function followSession(
  sessionId: string,
  services: { events: EventBus; paths: WorkspacePaths; requestOf: (requestId: string) => ApprovalRequestRecord | undefined },
  options: FollowOptions = {},
): Follower {
  const { events, paths } = services;
  // Appends of this process: their events were emitted when they were written (before the follower reads them).
  const own = new Set<string>();
  const remember = (key: string): void => {
    own.add(key);
    if (own.size > OWN_LIMIT) own.delete(own.values().next().value!);
  };
  const ownEvents = [
    events.on('message:sent', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(event.message.id);
    }),
    events.on('approval:requested', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`request ${event.requestId}`);
    }),
    events.on('approval:decided', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`decision ${event.requestId}`);
    }),
  ];
  // Requests read from the log and not decided yet: a decision is told with its request without reading the log again.
  const requests = new Map<string, ApprovalRequestRecord>();
  const refs = new Map<string, ConversationRef | undefined>();
  const warn = (path: string, offset: number, problem: string): void => events.emit('storage:warning', { path: paths.display(path), offset, problem, sessionId });
  const refOf = (conversationId: string): ConversationRef | undefined => {
    if (refs.has(conversationId)) return refs.get(conversationId);
    let ref: ConversationRef | undefined;
    try {
      ref = { sessionId, conversationId, ...parseConversationId(conversationId) };
    } catch {
      // Said once: the name is remembered as not followed.
      warn(`${paths.conversationsDir(sessionId)}/${conversationId}.jsonl`, 0, 'not followed: its name is no conversation id (<initiator>__<responder>[__<name>])');
    }
    refs.set(conversationId, ref);
    return ref;
  };
  const follower = new FileLogFollower({
    directory: paths.conversationsDir(sessionId),
    from: options.from,
    pollMs: options.pollMs,
    include: (conversationId) => refOf(conversationId) !== undefined,
    onMessages: (conversationId, messages) => {
      const ref = refOf(conversationId);
      if (!ref) return;
      for (const message of messages) {
        if (own.delete(message.id)) continue;
        events.emit('message:sent', { ...ref, message, author: authorOf(ref, message), remote: true });
      }
    },
    approvalsFile: paths.approvalsFile(sessionId),
    onApprovalRecords: (values) => {
      for (const value of values) {
        const parsed = ApprovalRecordSchema.safeParse(value);
        // A record of a newer format, or damaged: the approvals store says so when it loads the log.
        if (!parsed.success) continue;
        const record = parsed.data;
        if (record.kind === 'request') requests.set(record.id, record);
        const key = record.kind === 'request' ? `request ${record.id}` : record.kind === 'decision' ? `decision ${record.requestId}` : undefined;
        if (key !== undefined && !own.delete(key)) emitApprovalRecord(events, sessionId, record, (id) => requests.get(id) ?? services.requestOf(id), true);
        // A request gets one decision: after it, the request is not needed here any more.
        if (record.kind === 'decision') requests.delete(record.requestId);
      }
    },
    onWarning: (warning) => warn(warning.path, warning.offset, warning.problem),
  });
  const stop = (): void => {
    follower.close();
    for (const off of ownEvents) off();
  };
  return Object.assign(stop, { sessionId, cursor: () => follower.cursor(), check: () => follower.check() });
}

/**
 * Who wrote a logged message (the log keeps roles, not authors): the
 * responder its replies and the results of its tools, the initiator the rest.
 */
export function authorOf(ref: Pick<ConversationRef, 'initiator' | 'responder'>, message: Message): string {
  if (message.role === 'assistant') return ref.responder;
  const toolResultsOnly = message.content.length > 0 && message.content.every((block) => block.type === 'tool_result');
  return toolResultsOnly ? ref.responder : ref.initiator;
}
