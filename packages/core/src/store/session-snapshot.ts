import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LegionError } from '../kernel/index.js';
import type { ApprovalRecord } from './records/approval-records.js';
import type { ClaimConflictRecord } from './records/claim-conflict-record.js';
import type { HeaderEntry, LogEntry } from './records/log-entry.js';
import type { QuestionLogRecord } from './records/question-records.js';
import type { SessionMeta } from './records/session-meta.js';
import type { UsageRecord } from './records/usage-summary.js';
import type { SessionBackend } from './session-backend.js';

/**
 * Everything one session stores, read out of a backend through its interface: what
 * `legion store copy` moves between stores. Every list is in a fixed order (logs in
 * append order, the rest by name), so that two stores holding the same session give
 * equal snapshots and equal hashes whatever order their database returns rows in.
 */
export interface SessionSnapshot {
  meta: SessionMeta;
  conversations: { id: string; header: HeaderEntry | undefined; entries: Exclude<LogEntry, HeaderEntry>[] }[];
  approvals: ApprovalRecord[];
  questions: QuestionLogRecord[];
  usage: UsageRecord[];
  /** Writes file claims refused. */
  conflicts: ClaimConflictRecord[];
  agentState: { kind: string; agentId: string; document: unknown }[];
  /** Content as base64: artifacts are bytes. */
  artifacts: { name: string; base64: string }[];
}

/** What a copy checks on both sides: how many records of each kind, and a hash of all of them. */
export interface SnapshotSummary {
  conversations: number;
  entries: number;
  approvals: number;
  questions: number;
  usage: number;
  conflicts: number;
  agentState: number;
  artifacts: number;
  /** sha256 of the snapshot as canonical JSON (object keys sorted). */
  sha256: string;
}

export async function exportSession(backend: SessionBackend, sessionId: string): Promise<SessionSnapshot | undefined> {
  const meta = await backend.sessions.get(sessionId);
  if (!meta) return undefined;
  const conversations: SessionSnapshot['conversations'] = [];
  for (const id of sortedStrings(await backend.conversations.list(sessionId))) {
    const address = { sessionId, conversationId: id };
    conversations.push({ id, header: await backend.conversations.header(address), entries: await backend.conversations.entries(address) });
  }
  const agentState: SessionSnapshot['agentState'] = [];
  for (const kind of sortedStrings(await backend.agentState.kinds(sessionId))) {
    for (const agentId of sortedStrings(await backend.agentState.list(sessionId, kind))) {
      agentState.push({ kind, agentId, document: await backend.agentState.get({ sessionId, kind, agentId }, z.unknown()) });
    }
  }
  const artifacts: SessionSnapshot['artifacts'] = [];
  for (const name of sortedStrings((await backend.artifacts.list(sessionId)).map((artifact) => artifact.name))) {
    const content = await backend.artifacts.get(sessionId, name);
    if (content) artifacts.push({ name, base64: Buffer.from(content).toString('base64') });
  }
  return {
    meta,
    conversations,
    approvals: await backend.approvals.read(sessionId),
    questions: await backend.questions.read(sessionId),
    usage: await backend.usage.read(sessionId),
    conflicts: await backend.conflicts.read(sessionId),
    agentState,
    artifacts,
  };
}

/**
 * Writes a snapshot as a new session under its own id. Refuses (`session_exists`) a
 * session the target has already; what a failure half-way wrote is removed again,
 * so that nothing half-copied is left behind to be taken for a copy.
 */
export async function importSession(backend: SessionBackend, snapshot: SessionSnapshot): Promise<void> {
  const sessionId = snapshot.meta.id;
  if (!(await backend.sessions.restore(snapshot.meta))) {
    throw new LegionError(
      'session_exists',
      `Session ${sessionId} exists at the target already: remove it there first, or leave it out of the copy.`,
      { sessionId },
    );
  }
  try {
    for (const conversation of snapshot.conversations) {
      const address = { sessionId, conversationId: conversation.id };
      if (conversation.header) await backend.conversations.ensureHeader(address, conversation.header);
      // Written under the conversation's lease, as every append is: the session is new, so it is free.
      const taken = await backend.conversations.acquire(address, `copy of session ${sessionId}`, { ttlMs: 60_000 });
      if (!taken.acquired)
        throw new LegionError(
          'copy_conflict',
          `Conversation ${conversation.id} of session ${sessionId} is held by ${taken.holder?.owner ?? 'another process'} at the target.`,
          { sessionId },
        );
      try {
        for (const entry of conversation.entries) await backend.conversations.append(address, entry, taken.lease);
        await backend.conversations.flush(address);
      } finally {
        await taken.lease.release();
      }
    }
    for (const record of snapshot.approvals) {
      if (record.kind !== 'decision') await backend.approvals.append(sessionId, record);
      else if (!(await backend.approvals.claim(sessionId, [record])).ok)
        throw new LegionError('copy_conflict', `Approval ${record.requestId} of session ${sessionId} was decided twice in the source.`, {
          sessionId,
        });
    }
    for (const record of snapshot.questions) {
      if (record.kind === 'question') await backend.questions.append(sessionId, record);
      else if (!(await backend.questions.claim(sessionId, [record])).ok)
        throw new LegionError('copy_conflict', `Question ${record.questionId} of session ${sessionId} was settled twice in the source.`, {
          sessionId,
        });
    }
    for (const record of snapshot.usage) await backend.usage.append(sessionId, record);
    for (const record of snapshot.conflicts) await backend.conflicts.append(sessionId, record);
    for (const state of snapshot.agentState)
      await backend.agentState.put({ sessionId, kind: state.kind, agentId: state.agentId }, state.document);
    for (const artifact of snapshot.artifacts)
      await backend.artifacts.put(sessionId, artifact.name, Buffer.from(artifact.base64, 'base64'));
  } catch (error) {
    await backend.sessions.remove(sessionId);
    throw error;
  }
}

export function summarizeSnapshot(snapshot: SessionSnapshot): SnapshotSummary {
  return {
    conversations: snapshot.conversations.length,
    entries: snapshot.conversations.reduce((sum, conversation) => sum + conversation.entries.length, 0),
    approvals: snapshot.approvals.length,
    questions: snapshot.questions.length,
    usage: snapshot.usage.length,
    conflicts: snapshot.conflicts.length,
    agentState: snapshot.agentState.length,
    artifacts: snapshot.artifacts.length,
    sha256: createHash('sha256').update(canonicalJson(snapshot)).digest('hex'),
  };
}

/**
 * JSON with every object's keys sorted and undefined fields left out: a database that
 * stores documents as `jsonb` gives their keys back in its own order, which is no change.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const record = inner as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]]),
    );
  });
}

/** By code unit, not by locale: the order every store agrees on. */
function sortedStrings(values: string[]): string[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
