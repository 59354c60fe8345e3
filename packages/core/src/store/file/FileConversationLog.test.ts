import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HeaderEntry } from '../records/log-entry.js';
import type { Message } from '../../kernel/message.js';
import { LegionError } from '../../kernel/errors.js';
import { FileConversationLog } from './FileConversationLog.js';
import type { LogWarning } from '../fs/jsonl-log.js';

const FIXTURE_V1 = fileURLToPath(new URL('../records/__fixtures__/conversation-v1.jsonl', import.meta.url));

let dir: string;
let file: string;
let lockFile: string;
let warnings: LogWarning[];
const opened: FileConversationLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-conversation-'));
  file = join(dir, 'conversations', 'user__coordinator.jsonl');
  lockFile = join(dir, 'locks', 'user__coordinator.lock');
  warnings = [];
});

afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each instance stands for one process's view of the file. */
function openLog(path = file): FileConversationLog {
  const log = new FileConversationLog(path, lockFile, { onWarning: (warning) => warnings.push(warning) });
  opened.push(log);
  return log;
}

const header: HeaderEntry = {
  kind: 'header',
  version: 1,
  conversationId: 'user__coordinator',
  initiator: 'user',
  responder: 'coordinator',
  createdAt: '2025-01-01T00:00:00.000Z',
};

let counter = 0;
function message(role: Message['role'], text: string): Message {
  counter += 1;
  return {
    id: `m${counter}`,
    role,
    content: [{ type: 'text', text }],
    at: `2025-01-01T00:00:${String(counter % 60).padStart(2, '0')}.000Z`,
  };
}

function texts(messages: readonly Message[]): string[] {
  return messages.map((entry) => entry.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(''));
}

function conversationWith(count: number): { log: FileConversationLog; messages: Message[] } {
  const log = openLog();
  log.ensureHeader(header);
  const messages: Message[] = [];
  for (let n = 1; n <= count; n++) {
    const entry = message(n % 2 === 1 ? 'user' : 'assistant', `message ${n}`);
    log.appendMessage(entry);
    messages.push(entry);
  }
  return { log, messages };
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('FileConversationLog', () => {
  describe('header', () => {
    it('is written once, as the first line, and read back by another instance', () => {
      const log = openLog();
      expect(log.header()).toBeUndefined();
      log.ensureHeader(header);
      log.ensureHeader({ ...header, createdAt: 'later' });
      log.appendMessage(message('user', 'hi'));
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[0] ?? '')).toEqual(header);
      expect(openLog().header()).toEqual(header);
    });

    it('refuses a file written by a newer format with format_too_new, for reads too', () => {
      mkdirSync(join(dir, 'conversations'));
      writeFileSync(
        file,
        `${JSON.stringify({ ...header, version: 99 })}\n${JSON.stringify({ kind: 'message', ...message('user', 'hi') })}\n`,
      );
      const log = openLog();
      const error = (() => {
        try {
          log.header();
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(LegionError);
      expect(error).toMatchObject({ code: 'format_too_new', details: { path: file, version: 99 } });
      expect((error as Error).message).toContain('format 99');
      expect((error as Error).message).toContain('Upgrade Legion');
      expect(() => log.recent(5)).toThrow(expect.objectContaining({ code: 'format_too_new' }));
      expect(() => log.context()).toThrow(expect.objectContaining({ code: 'format_too_new' }));
    });

    it('refuses a newer format even when its header has a different shape', () => {
      mkdirSync(join(dir, 'conversations'));
      writeFileSync(file, '{"kind":"header","version":99,"participants":["user","coordinator"]}\n');
      expect(() => openLog().header()).toThrow(expect.objectContaining({ code: 'format_too_new' }));
    });

    it('warns about a first line that is not a header and does not add a second header after it', () => {
      mkdirSync(join(dir, 'conversations'));
      const edited = `${JSON.stringify({ kind: 'message', ...message('user', 'hand-edited') })}\n`;
      writeFileSync(file, edited);
      const log = openLog();
      log.ensureHeader(header);
      expect(readFileSync(file, 'utf8')).toBe(edited);
      expect(log.header()).toBeUndefined();
      expect(warnings.some((warning) => warning.offset === 0 && /not a conversation header/.test(warning.problem))).toBe(true);
      expect(texts(log.context())).toEqual(['hand-edited']);
    });

    it('writes the header over a torn first line left by a crash', () => {
      mkdirSync(join(dir, 'conversations'));
      writeFileSync(file, '{"kind":"header","vers');
      const log = openLog();
      log.ensureHeader(header);
      expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(header)}\n`);
      expect(readdirSync(join(dir, 'conversations')).filter((entry) => entry.includes('.torn-'))).toHaveLength(1);
    });
  });

  describe('recent', () => {
    it('returns the newest messages, oldest first', () => {
      const { log, messages } = conversationWith(7);
      expect(log.recent(3)).toEqual(messages.slice(-3));
      expect(log.recent(1)).toEqual(messages.slice(-1));
      expect(log.recent(50)).toEqual(messages);
      expect(log.recent(0)).toEqual([]);
      expect(openLog().recent(2)).toEqual(messages.slice(-2));
    });

    it('reads only the tail: an unreadable line early in the file is never reached', () => {
      const { log } = conversationWith(2);
      appendFileSync(file, '{"kind":"message","id":"broken","role":"robot"}\n');
      for (let n = 0; n < 2000; n++) log.appendMessage(message('user', `later ${n}`));
      expect(texts(log.recent(2))).toEqual(['later 1998', 'later 1999']);
      expect(warnings).toEqual([]);
      // Proof that the line is there to be found by a full read.
      expect(log.context()).toHaveLength(2002);
      expect(warnings.map((warning) => warning.problem)).toEqual([expect.stringMatching(/skipped an unreadable message line/)]);
    });

    it('skips notes', () => {
      const { log } = conversationWith(2);
      log.appendNote({ kind: 'note', level: 'error', code: 'runtime_failed', text: 'boom', at: '2025-01-01T00:00:00.000Z' });
      expect(texts(log.recent(5))).toEqual(['message 1', 'message 2']);
      expect(texts(log.context())).toEqual(['message 1', 'message 2']);
    });
  });

  describe('context', () => {
    it('is every message when there is no compaction point', () => {
      const { log, messages } = conversationWith(4);
      expect(log.context()).toEqual(messages);
    });

    it('stops at the last compaction point', () => {
      const { log } = conversationWith(3);
      appendFileSync(file, '{"kind":"compaction","at":"2025-01-01T00:00:00.000Z","summary":"they talked"}\n');
      log.appendMessage(message('user', 'after the first compaction'));
      appendFileSync(file, '{"kind":"compaction","at":"2025-01-01T00:01:00.000Z","summary":"and more"}\n');
      log.appendMessage(message('user', 'after the second'));
      log.appendMessage(message('assistant', 'reply'));
      expect(texts(openLog().context())).toEqual(['after the second', 'reply']);
    });

    it('is empty for a new conversation', () => {
      expect(openLog().context()).toEqual([]);
    });
  });

  describe('readNew', () => {
    it('picks up messages another instance appended to the same file, once', () => {
      const { log: mine } = conversationWith(2);
      expect(mine.context()).toHaveLength(2);
      const theirs = openLog();
      theirs.appendMessage(message('user', 'from the other process'));
      theirs.appendMessage(message('assistant', 'its answer'));
      expect(texts(mine.readNew())).toEqual(['from the other process', 'its answer']);
      expect(mine.readNew()).toEqual([]);
    });

    it("does not return this instance's own appends", () => {
      const { log: mine } = conversationWith(1);
      const theirs = openLog();
      mine.context();
      // Each turn follows the protocol: lock, catch up, append, unlock.
      const turn = (log: FileConversationLog, text: string): Message[] => {
        expect(log.tryLock('turn')).toBe(true);
        const fresh = log.readNew();
        log.appendMessage(message('assistant', text));
        log.unlock();
        return fresh;
      };
      expect(turn(mine, 'mine')).toEqual([]);
      turn(theirs, 'theirs');
      expect(texts(turn(mine, 'mine again'))).toEqual(['theirs']);
      turn(theirs, 'theirs again');
      expect(texts(mine.readNew())).toEqual(['theirs again']);
      expect(mine.readNew()).toEqual([]);
    });

    it('takes the file as it is on its first call, as the baseline', () => {
      conversationWith(3);
      const fresh = openLog();
      expect(fresh.readNew()).toEqual([]);
      openLog().appendMessage(message('user', 'new'));
      expect(texts(fresh.readNew())).toEqual(['new']);
    });

    it('waits for a line that is still being written instead of losing it', () => {
      const { log: mine } = conversationWith(1);
      mine.context();
      const full = `${JSON.stringify({ kind: 'message', ...message('user', 'slow write') })}\n`;
      appendFileSync(file, full.slice(0, 20));
      expect(mine.readNew()).toEqual([]);
      appendFileSync(file, full.slice(20));
      expect(texts(mine.readNew())).toEqual(['slow write']);
    });

    it('stays in step when another process cuts a torn tail and appends in its place', () => {
      const { log: mine } = conversationWith(2);
      appendFileSync(file, '{"kind":"message","id":"x","role":"user","content":[{"type":"te');
      // This process loads while the tail is torn (its writer crashed) ...
      expect(texts(mine.context())).toEqual(['message 1', 'message 2']);
      // ... then another process takes the lock, cuts the torn line and appends.
      const theirs = openLog();
      expect(theirs.tryLock('their turn')).toBe(true);
      theirs.appendMessage(message('user', 'after the repair'));
      theirs.unlock();
      warnings = [];
      expect(texts(mine.readNew())).toEqual(['after the repair']);
      expect(warnings).toEqual([]);
    });

    it('stays in step when this process cut the torn tail itself', () => {
      const { log: mine } = conversationWith(2);
      appendFileSync(file, '{"kind":"message","id":"x","ro');
      mine.context();
      expect(mine.tryLock('my turn')).toBe(true);
      expect(mine.readNew()).toEqual([]);
      mine.appendMessage(message('assistant', 'mine'));
      mine.unlock();
      openLog().appendMessage(message('user', 'theirs'));
      expect(texts(mine.readNew())).toEqual(['theirs']);
    });
  });

  describe('a torn last line', () => {
    it('is dropped with a warning by every read, and cut into a side file when the lock is taken', () => {
      const { messages } = conversationWith(3);
      const before = readFileSync(file, 'utf8');
      appendFileSync(file, '{"kind":"message","id":"torn","role":"assistant","content":[{"type":"text","text":"half a rep');
      const log = openLog();
      expect(log.recent(10)).toEqual(messages);
      expect(log.context()).toEqual(messages);
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings.every((warning) => warning.path === file && warning.offset === Buffer.byteLength(before))).toBe(true);
      expect(log.tryLock('turn')).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(before);
      const side = readdirSync(join(dir, 'conversations')).filter((entry) => entry.startsWith('user__coordinator.jsonl.torn-'));
      expect(side).toHaveLength(1);
      expect(readFileSync(join(dir, 'conversations', side[0] ?? ''), 'utf8')).toContain('half a rep');
      log.appendMessage(message('assistant', 'a whole reply'));
      log.unlock();
      expect(texts(openLog().context())).toEqual(['message 1', 'message 2', 'message 3', 'a whole reply']);
    });

    it('skips a message line that does not match the schema, with a warning', () => {
      const { log } = conversationWith(1);
      appendFileSync(file, '{"kind":"message","id":"bad","role":"user","content":"not blocks","at":"x"}\n');
      log.appendMessage(message('assistant', 'fine'));
      expect(texts(log.context())).toEqual(['message 1', 'fine']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.problem).toMatch(/skipped an unreadable message line/);
    });
  });

  describe('the lock', () => {
    it('keeps a second instance out of the turn and names the holder', () => {
      const a = openLog();
      const b = openLog();
      expect(a.tryLock('answering user')).toBe(true);
      expect(b.tryLock('another turn')).toBe(false);
      expect(b.lockHolder()).toBe('this process: answering user');
      a.unlock();
      expect(b.tryLock('another turn')).toBe(true);
      b.close();
      expect(a.tryLock('again')).toBe(true);
    });
  });

  describe('the version 1 fixture', () => {
    it('is unchanged (old fixtures are kept as they were written)', () => {
      expect(sha256(FIXTURE_V1)).toBe('a623e4763c3c7a5513b97beda479b168dbc0d44fa6b0d3be4adb9898d36023eb');
    });

    it('loads with its header, messages, tool calls and results', () => {
      mkdirSync(join(dir, 'conversations'));
      copyFileSync(FIXTURE_V1, file);
      const log = openLog();
      expect(log.header()).toEqual({
        kind: 'header',
        version: 1,
        conversationId: 'user__coordinator',
        initiator: 'user',
        responder: 'coordinator',
        createdAt: '2025-01-15T09:00:00.000Z',
      });
      const expected: Message[] = [
        {
          id: 'm1',
          role: 'user',
          content: [{ type: 'text', text: 'How many TODO comments are in src/?' }],
          at: '2025-01-15T09:00:01.000Z',
        },
        {
          id: 'm2',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me search.' },
            { type: 'tool_use', id: 'toolu_01', name: 'search_files', input: { pattern: 'TODO', path: 'src' } },
          ],
          at: '2025-01-15T09:00:03.000Z',
          usage: { inputTokens: 120, outputTokens: 30 },
          model: 'anthropic/claude-sonnet-4-5',
        },
        {
          id: 'm3',
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'toolu_01', content: 'src/a.ts:3: // TODO tidy\nsrc/b.ts:9: // TODO test', isError: false },
          ],
          at: '2025-01-15T09:00:04.000Z',
        },
        {
          id: 'm4',
          role: 'assistant',
          content: [{ type: 'text', text: 'There are 2 TODO comments: src/a.ts line 3 and src/b.ts line 9.' }],
          at: '2025-01-15T09:00:06.000Z',
          usage: { inputTokens: 180, outputTokens: 25, cacheReadTokens: 100 },
          model: 'anthropic/claude-sonnet-4-5',
        },
        { id: 'm5', role: 'user', content: [{ type: 'text', text: 'Thanks — und grüße 👋' }], at: '2025-01-15T09:01:00.000Z' },
      ];
      expect(log.context()).toEqual(expected);
      expect(log.recent(2)).toEqual(expected.slice(-2));
      expect(warnings).toEqual([]);
      // Reading never rewrites it.
      expect(sha256(file)).toBe(sha256(FIXTURE_V1));
    });

    it('can be continued by this version', () => {
      mkdirSync(join(dir, 'conversations'));
      copyFileSync(FIXTURE_V1, file);
      const log = openLog();
      log.ensureHeader(header);
      log.appendMessage(message('assistant', 'You are welcome.'));
      expect(readFileSync(file, 'utf8').startsWith(readFileSync(FIXTURE_V1, 'utf8'))).toBe(true);
      expect(texts(openLog().recent(2))).toEqual(['Thanks — und grüße 👋', 'You are welcome.']);
    });
  });
});
