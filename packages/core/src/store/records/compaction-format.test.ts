import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionBackend } from '../file/FileSessionBackend.js';
import { MemorySessionBackend } from '../memory/MemorySessionBackend.js';
import type { AppendableEntry, SessionBackend } from '../session-backend.js';
import { CONVERSATION_FORMAT_VERSION, HeaderEntrySchema, LogEntrySchema } from './log-entry.js';
import { WorkspacePaths } from '../fs/workspace-paths.js';
import { appendUnderLease } from '../../testing/append-under-lease.js';

/** A version 1 log with a version 1 compaction entry (summary only), as an earlier Legion wrote it. Never changes. */
const FIXTURE = fileURLToPath(new URL('./__fixtures__/conversation-v1-compacted.jsonl', import.meta.url));
const SESSION = '20250201-100000-abcdef';
const address = { sessionId: SESSION, conversationId: 'user__coordinator' };

describe('conversation format 2 reads version 1 logs with their compaction entries', () => {
  let root: string;
  const closers: Array<() => Promise<void>> = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-compaction-format-'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps the fixture as it was written', () => {
    expect(createHash('sha256').update(readFileSync(FIXTURE)).digest('hex')).toBe(
      '37505682e57af16edc7f7e0fd21a1025fd010607b9cb9dd85c909bb149d87524',
    );
    expect(CONVERSATION_FORMAT_VERSION).toBe(2);
  });

  async function fileBackend(): Promise<SessionBackend> {
    const paths = new WorkspacePaths(root);
    const backend = new FileSessionBackend({ root });
    closers.push(() => backend.close());
    const created = await backend.sessions.create();
    // The fixture goes under a session the backend knows.
    address.sessionId = created.id;
    mkdirSync(paths.conversationsDir(created.id), { recursive: true });
    copyFileSync(FIXTURE, paths.conversationFile(created.id, address.conversationId));
    return backend;
  }

  async function memoryBackend(): Promise<SessionBackend> {
    const backend = new MemorySessionBackend();
    closers.push(() => backend.close());
    const created = await backend.sessions.create();
    address.sessionId = created.id;
    const [header, ...entries] = readFileSync(FIXTURE, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    await backend.conversations.ensureHeader(address, HeaderEntrySchema.parse(header));
    for (const entry of entries) await appendUnderLease(backend, address, LogEntrySchema.parse(entry) as AppendableEntry);
    return backend;
  }

  it.each([
    ['file', fileBackend],
    ['memory', memoryBackend],
  ] as const)(
    'on the %s backend: the version 1 compaction point keeps nothing before it, and the log keeps everything',
    async (_name, open) => {
      const backend = await open();
      expect(await backend.conversations.header(address)).toMatchObject({ version: 1 });
      const context = await backend.conversations.context(address);
      expect(context.compaction).toEqual({
        kind: 'compaction',
        at: '2025-02-01T10:01:00.000Z',
        summary: 'The user asked to rename the config loader; it is now src/load-config.ts.',
        throughMessageId: 'm2',
        keptMessages: 0,
        carried: [],
      });
      expect(context.messages.map((message) => message.id)).toEqual(['m3', 'm4']);
      expect((await backend.conversations.recent(address, 10)).map((message) => message.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
      expect((await backend.conversations.readSince(address, undefined)).messages.map((message) => message.id)).toEqual([
        'm1',
        'm2',
        'm3',
        'm4',
      ]);

      // Continued by this version: a version 2 entry keeping m4 follows it, and rules.
      await appendUnderLease(backend, address, {
        kind: 'compaction',
        at: '2026-01-01T00:00:00.000Z',
        summary: 'renamed and imports updated',
        throughMessageId: 'm3',
        keptMessages: 1,
        reason: 'manual',
      });
      const next = await backend.conversations.context(address);
      expect(next.compaction).toMatchObject({ summary: 'renamed and imports updated', keptMessages: 1, reason: 'manual' });
      expect(next.messages.map((message) => message.id)).toEqual(['m4']);
      expect((await backend.conversations.readSince(address, context.cursor)).compacted).toBe(true);
    },
  );
});
