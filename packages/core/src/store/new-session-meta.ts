import { randomBytes } from 'node:crypto';
import { SESSION_FORMAT_VERSION, type SessionMeta } from './records/session-meta.js';

/** A new session's metadata: an id sortable by time and unique across processes started in the same second. */
export function newSessionMeta(options: { title?: string | undefined } = {}, now = new Date()): SessionMeta {
  const id = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(3).toString('hex')}`;
  return {
    version: SESSION_FORMAT_VERSION,
    id,
    createdAt: now.toISOString(),
    lastActiveAt: now.toISOString(),
    ...(options.title ? { title: options.title } : {}),
  };
}

/** Most recently active first; equal times by id, newest id first. */
export function byMostRecent(a: SessionMeta, b: SessionMeta): number {
  if (a.lastActiveAt !== b.lastActiveAt) return a.lastActiveAt < b.lastActiveAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Only the fields given change: a title set by one caller survives another's activity. */
export function applySessionChanges(
  meta: SessionMeta,
  changes: { lastActiveAt?: string | undefined; title?: string | undefined },
): SessionMeta {
  return {
    ...meta,
    ...(changes.lastActiveAt !== undefined ? { lastActiveAt: changes.lastActiveAt } : {}),
    ...(changes.title !== undefined ? { title: changes.title } : {}),
  };
}
