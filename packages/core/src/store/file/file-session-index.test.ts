import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendUnderLease } from '../../testing/append-under-lease.js';
import { header, messageEntry, usageRecord } from '../../testing/backend-contract/harness.js';
import { WorkspacePaths } from '../fs/workspace-paths.js';
import { searchWords } from '../message-words.js';
import type { ConversationAddress } from '../session-backend.js';
import { FileSessionBackend } from './FileSessionBackend.js';

describe('the file session index (sessions/<id>/index.json)', () => {
  let root: string;
  let paths: WorkspacePaths;
  const opened: FileSessionBackend[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-index-'));
    paths = new WorkspacePaths(root);
  });
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    rmSync(root, { recursive: true, force: true });
  });

  function open(): FileSessionBackend {
    const backend = new FileSessionBackend({ root });
    opened.push(backend);
    return backend;
  }

  async function conversation(backend: FileSessionBackend, texts: readonly string[]): Promise<ConversationAddress> {
    const address = { sessionId: (await backend.sessions.create()).id, conversationId: 'user__dev' };
    await backend.conversations.ensureHeader(address, header(address.conversationId));
    for (const text of texts) await appendUnderLease(backend, address, messageEntry(text));
    return address;
  }

  function stored(sessionId: string): { conversations: Record<string, { bytes: number; messages: number }> } {
    return JSON.parse(readFileSync(paths.sessionIndexFile(sessionId), 'utf8')) as {
      conversations: Record<string, { bytes: number; messages: number }>;
    };
  }

  it('is kept at each append (written a moment later): it covers the whole log, with no read needed to count', async () => {
    const backend = open();
    const address = await conversation(backend, ['one', 'two', 'three']);
    await backend.usage.append(address.sessionId, usageRecord('dev', 4));
    // Written a moment after the appends, or when the backend closes.
    backend.index.flush();
    const log = paths.conversationFile(address.sessionId, address.conversationId);
    expect(stored(address.sessionId).conversations['user__dev']).toMatchObject({ bytes: statSync(log).size, messages: 3 });
    expect(stored(address.sessionId)).toMatchObject({ usage: { bytes: statSync(paths.usageFile(address.sessionId)).size } });
  });

  it('after a restart and after a crash between an append and its count (kill -9), counts what the log holds, reading only its tail', async () => {
    const writer = open();
    const address = await conversation(writer, ['one', 'two']);
    // Its lease given back: the lines below stand for what it wrote before dying.
    await writer.close();
    const log = paths.conversationFile(address.sessionId, address.conversationId);
    const counted = statSync(log).size;
    // A writer killed after its line reached the log, before the index: a whole line and a torn one.
    appendFileSync(log, `${JSON.stringify(messageEntry('lost zebra'))}\n`);
    const complete = statSync(log).size;
    appendFileSync(log, '{"kind":"message","id":"torn","ro');
    const restarted = open();
    expect(await restarted.index.tally(address.sessionId)).toMatchObject({ conversations: [{ conversationId: 'user__dev', messages: 3 }] });
    // Repaired and saved: the torn line is left for whoever takes the lease (it cuts it).
    expect(stored(address.sessionId).conversations['user__dev']).toEqual(expect.objectContaining({ bytes: complete, messages: 3 }));
    expect(complete).toBeGreaterThan(counted);
    const sessions = [{ id: address.sessionId, lastActiveAt: new Date().toISOString() }];
    expect((await restarted.index.search({ words: ['zebra'], sessions, limit: 10 })).map((hit) => hit.message.content)).toEqual([
      [{ type: 'text', text: 'lost zebra' }],
    ]);
    // The next writer cuts the torn line and appends: counted at the append again.
    await appendUnderLease(open(), address, messageEntry('four'));
    expect(await open().index.tally(address.sessionId)).toMatchObject({ conversations: [{ messages: 4 }] });
    expect(stored(address.sessionId).conversations['user__dev']?.bytes).toBe(statSync(log).size);
  });

  it('repairs an index another process overwrote with an older one, and one that is gone or broken', async () => {
    const backend = open();
    const address = await conversation(backend, ['one']);
    backend.index.flush();
    const older = readFileSync(paths.sessionIndexFile(address.sessionId), 'utf8');
    await appendUnderLease(backend, address, messageEntry('two'));
    writeFileSync(paths.sessionIndexFile(address.sessionId), older);
    expect(await open().index.tally(address.sessionId)).toMatchObject({ conversations: [{ messages: 2 }] });
    writeFileSync(paths.sessionIndexFile(address.sessionId), '{"version":1,"conver');
    expect(await open().index.tally(address.sessionId)).toMatchObject({ conversations: [{ messages: 2 }] });
    rmSync(paths.sessionIndexFile(address.sessionId));
    expect(await open().index.tally(address.sessionId)).toMatchObject({ conversations: [{ messages: 2 }] });
    expect(stored(address.sessionId).conversations['user__dev']?.messages).toBe(2);
  });

  it('grows its word filter past what it was sized for, and still tells a word found nowhere from one found', async () => {
    const backend = open();
    const words = Array.from({ length: 3000 }, (_, index) => `word${index}`);
    const texts: string[] = [];
    for (let start = 0; start < words.length; start += 100) texts.push(words.slice(start, start + 100).join(' '));
    const address = await conversation(backend, texts);
    const sessions = [{ id: address.sessionId, lastActiveAt: new Date().toISOString() }];
    const search = (text: string) => open().index.search({ words: searchWords(text), sessions, limit: 5 });
    expect(await search('word0')).toHaveLength(1);
    expect(await search('word2999 word2950')).toHaveLength(1);
    expect(await search('word3000')).toEqual([]);
    const filter = JSON.parse(readFileSync(paths.sessionIndexFile(address.sessionId), 'utf8')) as {
      words: { bits: string; words: number };
    };
    // Sized for the words it holds (ten bits a word), not left at its first size.
    expect(Buffer.from(filter.words.bits, 'base64').length * 8).toBeGreaterThanOrEqual(filter.words.words * 10);
    expect(filter.words.words).toBeGreaterThan(2900);
  });
});
