import { vitest } from './vitest-api.js';
import { randomUUID } from 'node:crypto';
import type {
  ApprovalDecisionRecord,
  ApprovalRequestRecord,
  HeaderEntry,
  MessageEntry,
  UsageRecord,
  ClaimConflictRecord,
  QuestionAnswerRecord,
  QuestionRecord,
  QuestionWithdrawnRecord,
  ConversationAddress,
  RecordLogName,
  SessionBackend,
  SessionBackendOptions,
  FileClaim,
} from '../../store/index.js';

/**
 * What the contract suite needs from a backend under test. Everything but
 * `open` simulates something that happens to a store from outside: a crash,
 * a hand edit, a bad write.
 */
export interface SessionBackendHarness {
  /** A backend on the harness's store. Every call is another instance, as another process on the same store would be. */
  open(options?: SessionBackendOptions): SessionBackend;
  /** Leaves a lease on `address`, with an expiry an hour away, whose holder then dies without releasing it. */
  abandonLease(address: ConversationAddress, owner: string): Promise<void>;
  /** Leaves `claim` taken by a holder that then dies without giving it back (a process killed with SIGKILL). */
  abandonFileClaim(claim: FileClaim): Promise<void>;
  /** Makes a session's stored record unreadable. */
  breakSession(sessionId: string): Promise<void>;
  /** Adds an entry no reader can parse to the end of a conversation log. */
  breakConversation(address: ConversationAddress): Promise<void>;
  /**
   * Adds `record` (a JSON object) to the end of a session's record log as stored, unchecked, the
   * way the backend stores what it appends: a record an older Legion wrote (a version 1 approval
   * request, a `link` record), or one no reader can parse.
   */
  storeRecord(sessionId: string, log: RecordLogName, record: Record<string, unknown>): Promise<void>;
  /** Frees what the store used. */
  dispose(): Promise<void>;
}

export type MakeHarness = () => Promise<SessionBackendHarness>;

/** Gives each test a harness and closes every backend it opened. */
export function useHarness(makeHarness: MakeHarness): {
  harness(): SessionBackendHarness;
  open(options?: SessionBackendOptions): SessionBackend;
} {
  const { afterEach, beforeEach } = vitest();
  let current: SessionBackendHarness | undefined;
  const opened: SessionBackend[] = [];
  beforeEach(async () => {
    current = await makeHarness();
  });
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    await current?.dispose();
    current = undefined;
  });
  const harness = (): SessionBackendHarness => {
    if (!current) throw new Error('the harness exists only inside a test');
    return current;
  };
  return {
    harness,
    open: (options) => {
      const backend = harness().open(options);
      opened.push(backend);
      return backend;
    },
  };
}

export function header(conversationId: string, createdAt = '2026-01-01T00:00:00.000Z'): HeaderEntry {
  const [initiator = 'a', responder = 'b', name] = conversationId.split('__');
  return { kind: 'header', version: 1, conversationId, initiator, responder, ...(name ? { name } : {}), createdAt };
}

export function messageEntry(text: string, role: 'user' | 'assistant' = 'user'): MessageEntry {
  return { kind: 'message', id: randomUUID(), role, content: [{ type: 'text', text }], at: new Date().toISOString() };
}

export function textsOf(messages: ReadonlyArray<{ content: ReadonlyArray<{ type: string; text?: string }> }>): string[] {
  return messages.map((message) => message.content.map((block) => block.text ?? '').join(''));
}

export function approvalRequest(id: string, conversationId = 'user__dev'): ApprovalRequestRecord {
  return {
    kind: 'request',
    version: 2,
    id,
    at: new Date().toISOString(),
    batchId: 'batch-1',
    requester: 'dev',
    approver: 'user',
    tool: 'file_write',
    input: { path: 'a.txt' },
    toolUseId: `toolu_${id}`,
    conversationId,
    reason: 'writes need approval',
    frames: [{ participantId: 'user', conversationId }],
  };
}

export function decision(requestId: string, decidedBy: string, verdict: 'approved' | 'rejected' = 'approved'): ApprovalDecisionRecord {
  return { kind: 'decision', version: 1, requestId, at: new Date().toISOString(), decision: verdict, decidedBy };
}

export function usageRecord(participantId: string, inputTokens: number): UsageRecord {
  return {
    version: 1,
    at: new Date().toISOString(),
    participantId,
    conversationId: `user__${participantId}`,
    chain: ['user'],
    provider: 'scripted',
    model: 'test',
    usage: { inputTokens, outputTokens: 1 },
    costUsd: null,
  };
}

/** A write of `participantId`'s refused by the developer's claim; `id` its record id. */
export function claimConflict(id: string, participantId = 'reviewer'): ClaimConflictRecord {
  return {
    kind: 'conflict',
    version: 1,
    id,
    at: new Date().toISOString(),
    conversationId: `coordinator__${participantId}`,
    participantId,
    tool: 'file_write',
    path: 'NOTES.md',
    holder: {
      participantId: 'developer',
      sessionId: 'any',
      conversationId: 'coordinator__developer',
      doing: 'Write the notes',
      since: '2026-01-01T00:00:00.000Z',
    },
  };
}

export function question(id: string): QuestionRecord {
  return {
    kind: 'question',
    version: 1,
    id,
    at: new Date().toISOString(),
    conversationId: 'dev__user',
    user: 'user',
    from: 'dev',
    chain: ['user', 'dev'],
    text: 'Which database?',
  };
}

export function answer(questionId: string, text: string, medium = 'web'): QuestionAnswerRecord {
  return { kind: 'answer', version: 1, questionId, at: new Date().toISOString(), text, answeredBy: 'user', medium };
}

export function withdrawn(questionId: string): QuestionWithdrawnRecord {
  return { kind: 'withdrawn', version: 1, questionId, at: new Date().toISOString(), reason: 'the turn was stopped' };
}

export function fileClaim(path: string, conversationId = 'user__dev', sessionId = 'session-1'): FileClaim {
  const [, participantId = 'dev'] = conversationId.split('__');
  return { version: 1, path, sessionId, conversationId, participantId, doing: `Change ${path}`, since: new Date().toISOString() };
}
