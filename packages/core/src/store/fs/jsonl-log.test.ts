import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlLog, type LogLine, type LogWarning } from './jsonl-log.js';
import { NotRegularFileError } from './regular-file.js';

let dir: string;
let warnings: LogWarning[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-jsonl-'));
  warnings = [];
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function openLog(name = 'log.jsonl'): JsonlLog {
  return new JsonlLog(join(dir, name), { onWarning: (warning) => warnings.push(warning) });
}

/** What every line of the file is, computed independently of JsonlLog from the raw bytes. */
function linesOnDisk(path: string): LogLine[] {
  const bytes = readFileSync(path);
  const lines: LogLine[] = [];
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline < 0) break;
    lines.push({ offset: start, end: newline + 1, text: bytes.toString('utf8', start, newline) });
    start = newline + 1;
  }
  return lines;
}

function sideFiles(): string[] {
  return readdirSync(dir).filter((entry) => entry.startsWith('log.jsonl.torn-'));
}

describe('JsonlLog', () => {
  describe('a missing or empty file', () => {
    it('reads as empty and is not created by reading', () => {
      const log = openLog();
      expect(log.exists()).toBe(false);
      expect(log.diskSize()).toBe(0);
      expect(log.readBackward()).toEqual([]);
      expect(log.readForward()).toEqual({ lines: [], end: 0 });
      expect(log.readForwardFirst()).toBeUndefined();
      expect(log.exists()).toBe(false);
      expect(warnings).toEqual([]);
    });

    it('reads an empty file as empty, without warnings', () => {
      writeFileSync(join(dir, 'log.jsonl'), '');
      const log = openLog();
      expect(log.exists()).toBe(true);
      expect(log.readBackward()).toEqual([]);
      expect(log.readForward()).toEqual({ lines: [], end: 0 });
      expect(log.readForwardFirst()).toBeUndefined();
      log.repairTail();
      expect(statSync(log.path).size).toBe(0);
      expect(warnings).toEqual([]);
    });
  });

  describe('append', () => {
    it('writes one JSON line per value, creating missing folders, and counts the bytes', () => {
      const log = new JsonlLog(join(dir, 'a', 'b', 'log.jsonl'));
      const first = log.append({ n: 1, text: 'hello' });
      const second = log.append({ n: 2, text: 'grüße 👋' });
      log.close();
      const content = readFileSync(log.path, 'utf8');
      expect(content).toBe('{"n":1,"text":"hello"}\n{"n":2,"text":"grüße 👋"}\n');
      expect(first).toBe(Buffer.byteLength('{"n":1,"text":"hello"}\n'));
      expect(first + second).toBe(statSync(log.path).size);
      expect(log.knownSize).toBe(first + second);
    });

    it('continues an existing file, and several writers interleave whole lines', () => {
      const a = openLog();
      const b = openLog();
      a.append({ from: 'a', n: 1 });
      b.append({ from: 'b', n: 1 });
      a.append({ from: 'a', n: 2 });
      // `knownSize` is what this writer saw; `diskSize` is the file now.
      expect(a.diskSize()).toBe(statSync(a.path).size);
      expect(b.knownSize).toBeLessThan(b.diskSize());
      a.close();
      b.close();
      const texts = new JsonlLog(a.path).readForward().lines.map((line) => JSON.parse(line.text) as unknown);
      expect(texts).toEqual([
        { from: 'a', n: 1 },
        { from: 'b', n: 1 },
        { from: 'a', n: 2 },
      ]);
    });
  });

  describe('readBackward', () => {
    let log: JsonlLog;
    beforeEach(() => {
      log = openLog();
      for (let n = 1; n <= 5; n++) log.append({ n });
      log.close();
    });

    it('returns every line newest first with its exact byte range', () => {
      const lines = log.readBackward();
      expect(lines.map((line) => JSON.parse(line.text) as unknown)).toEqual([{ n: 5 }, { n: 4 }, { n: 3 }, { n: 2 }, { n: 1 }]);
      expect(lines).toEqual(linesOnDisk(log.path).reverse());
    });

    it('stops after `limit` lines', () => {
      expect(log.readBackward({ limit: 2 }).map((line) => line.text)).toEqual(['{"n":5}', '{"n":4}']);
      expect(log.readBackward({ limit: 0 })).toEqual([]);
      expect(log.readBackward({ limit: 99 })).toHaveLength(5);
    });

    it('stops at the line `stop` accepts, including it', () => {
      const seen: string[] = [];
      const lines = log.readBackward({
        stop: (line) => {
          seen.push(line.text);
          return line.text === '{"n":3}';
        },
      });
      expect(lines.map((line) => line.text)).toEqual(['{"n":5}', '{"n":4}', '{"n":3}']);
      expect(seen).toEqual(['{"n":5}', '{"n":4}', '{"n":3}']);
    });

    it('reads a file of many chunks exactly like a forward read, multi-byte characters included', () => {
      const big = openLog('big.jsonl');
      // Lines of varied length so that chunk boundaries fall everywhere, even inside a 4-byte emoji.
      for (let n = 0; n < 3000; n++) big.append({ n, text: '👋é'.repeat(n % 97) });
      big.close();
      expect(statSync(big.path).size).toBeGreaterThan(4 * 64 * 1024);
      const backward = big.readBackward();
      expect(backward).toHaveLength(3000);
      expect([...backward].reverse()).toEqual(big.readForward().lines);
      expect(backward).toEqual(linesOnDisk(big.path).reverse());
      expect(warnings).toEqual([]);
    });

    it('reads lines longer than the 64 KB read chunk', () => {
      const long = openLog('long.jsonl');
      const values = [
        { n: 1, text: 'a'.repeat(200 * 1024) },
        { n: 2, text: 'short' },
        { n: 3, text: 'ü'.repeat(700 * 1024) },
        { n: 4, text: 'b'.repeat(64 * 1024 - 20) },
        { n: 5, text: 'c'.repeat(3 * 1024 * 1024) },
      ];
      for (const value of values) long.append(value);
      long.close();
      const backward = long.readBackward().map((line) => JSON.parse(line.text) as unknown);
      expect(backward).toEqual([...values].reverse());
      expect(long.readBackward({ limit: 1 }).map((line) => JSON.parse(line.text) as unknown)).toEqual([values[4]]);
      expect(long.readForward().lines.map((line) => JSON.parse(line.text) as unknown)).toEqual(values);
      expect(long.readForwardFirst()?.text).toBe(JSON.stringify(values[0]));
    });

    it('skips empty lines', () => {
      writeFileSync(join(dir, 'gaps.jsonl'), '{"n":1}\n\n\n{"n":2}\n\n');
      const lines = openLog('gaps.jsonl').readBackward();
      expect(lines.map((line) => line.text)).toEqual(['{"n":2}', '{"n":1}']);
      expect(lines.map((line) => line.offset)).toEqual([10, 0]);
    });
  });

  describe('readForward', () => {
    it('returns lines oldest first and the offset to continue from', () => {
      const log = openLog();
      log.append({ n: 1 });
      log.append({ n: 2 });
      const first = log.readForward();
      expect(first.lines.map((line) => line.text)).toEqual(['{"n":1}', '{"n":2}']);
      expect(first.end).toBe(statSync(log.path).size);
      log.append({ n: 3 });
      const next = log.readForward(first.end);
      expect(next.lines).toEqual([{ offset: first.end, end: statSync(log.path).size, text: '{"n":3}' }]);
      expect(log.readForward(next.end)).toEqual({ lines: [], end: next.end });
      log.close();
    });

    it('returns nothing from an offset at or past the end', () => {
      const log = openLog();
      log.append({ n: 1 });
      log.close();
      const size = statSync(log.path).size;
      expect(log.readForward(size)).toEqual({ lines: [], end: size });
    });
  });

  describe('readForwardFirst', () => {
    it('returns the first complete line only', () => {
      writeFileSync(join(dir, 'log.jsonl'), '{"first":true}\n{"second":true}\n');
      expect(openLog().readForwardFirst()).toEqual({ offset: 0, end: 15, text: '{"first":true}' });
    });

    it('returns a complete first line that has no newline, but not a torn one', () => {
      writeFileSync(join(dir, 'log.jsonl'), '{"only":true}');
      expect(openLog().readForwardFirst()?.text).toBe('{"only":true}');
      writeFileSync(join(dir, 'log.jsonl'), '{"only":tr');
      expect(openLog().readForwardFirst()).toBeUndefined();
    });
  });

  describe('a torn last line (a write interrupted by a crash)', () => {
    const complete = '{"n":1}\n{"n":2}\n';
    const torn = '{"n":3,"text":"cut off in the midd';

    beforeEach(() => {
      writeFileSync(join(dir, 'log.jsonl'), complete + torn);
    });

    it('is dropped by readBackward with a warning that says where', () => {
      const log = openLog();
      expect(log.readBackward().map((line) => line.text)).toEqual(['{"n":2}', '{"n":1}']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ path: log.path, offset: complete.length });
      expect(warnings[0]?.problem).toContain(`torn last line (${torn.length} bytes)`);
    });

    it('is dropped by readForward, whose end stays before it', () => {
      const log = openLog();
      const { lines, end } = log.readForward();
      expect(lines.map((line) => line.text)).toEqual(['{"n":1}', '{"n":2}']);
      expect(end).toBe(complete.length);
      expect(warnings.map((warning) => warning.offset)).toEqual([complete.length]);
    });

    it('is never counted even by a limited read', () => {
      expect(
        openLog()
          .readBackward({ limit: 1 })
          .map((line) => line.text),
      ).toEqual(['{"n":2}']);
    });

    it('is moved to a .torn-* side file by repairTail, which cuts the log back to its last newline', () => {
      const log = openLog();
      log.repairTail();
      expect(readFileSync(log.path, 'utf8')).toBe(complete);
      const side = sideFiles();
      expect(side).toHaveLength(1);
      expect(readFileSync(join(dir, side[0] ?? ''), 'utf8')).toBe(torn);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.offset).toBe(complete.length);
      expect(warnings[0]?.problem).toContain(join(dir, side[0] ?? ''));
      log.append({ n: 4 });
      log.close();
      expect(readFileSync(log.path, 'utf8')).toBe(`${complete}{"n":4}\n`);
    });

    it('is repaired before the first append, so the next line is not glued to it', () => {
      const log = openLog();
      log.append({ n: 4 });
      log.append({ n: 5 });
      log.close();
      expect(readFileSync(log.path, 'utf8')).toBe(`${complete}{"n":4}\n{"n":5}\n`);
      expect(sideFiles()).toHaveLength(1);
      expect(warnings).toHaveLength(1);
    });

    it('keeps the bytes of every repair, even two in the same millisecond', () => {
      const log = openLog();
      log.repairTail();
      appendFileSync(log.path, '{"second":"torn');
      log.repairTail();
      log.close();
      const contents = sideFiles().map((entry) => readFileSync(join(dir, entry), 'utf8'));
      expect(contents.sort()).toEqual([torn, '{"second":"torn'].sort());
      expect(readFileSync(log.path, 'utf8')).toBe(complete);
    });

    it('cuts a whole file that is one torn line down to nothing', () => {
      writeFileSync(join(dir, 'log.jsonl'), '{"header":tr');
      const log = openLog();
      log.repairTail();
      log.close();
      expect(statSync(log.path).size).toBe(0);
      expect(readFileSync(join(dir, sideFiles()[0] ?? ''), 'utf8')).toBe('{"header":tr');
    });

    it('moves a torn line longer than the read chunk whole', () => {
      const longTorn = `{"n":3,"text":"${'x'.repeat(300 * 1024)}`;
      writeFileSync(join(dir, 'log.jsonl'), complete + longTorn);
      const log = openLog();
      expect(log.readBackward().map((line) => line.text)).toEqual(['{"n":2}', '{"n":1}']);
      log.repairTail();
      log.close();
      expect(readFileSync(log.path, 'utf8')).toBe(complete);
      expect(readFileSync(join(dir, sideFiles()[0] ?? ''), 'utf8')).toBe(longTorn);
    });
  });

  it('moves a torn line longer than 16 MB whole, not just its end', () => {
    const complete = '{"n":1}\n';
    const hugeTorn = `{"n":2,"text":"${'y'.repeat(17 * 1024 * 1024)}`;
    writeFileSync(join(dir, 'log.jsonl'), complete + hugeTorn);
    const log = openLog();
    log.append({ n: 3 });
    log.close();
    expect(readFileSync(log.path, 'utf8')).toBe(`${complete}{"n":3}\n`);
    expect(statSync(join(dir, sideFiles()[0] ?? '')).size).toBe(hugeTorn.length);
  });

  describe('a complete last line without a newline (written by hand, or cut exactly before it)', () => {
    const content = '{"n":1}\n{"n":2}';

    beforeEach(() => {
      writeFileSync(join(dir, 'log.jsonl'), content);
    });

    it('is kept by every read, without warnings', () => {
      const log = openLog();
      expect(log.readBackward().map((line) => line.text)).toEqual(['{"n":2}', '{"n":1}']);
      expect(log.readBackward({ limit: 1 })[0]).toEqual({ offset: 8, end: content.length, text: '{"n":2}' });
      expect(log.readForward()).toEqual({
        lines: [
          { offset: 0, end: 8, text: '{"n":1}' },
          { offset: 8, end: content.length, text: '{"n":2}' },
        ],
        end: content.length,
      });
      expect(warnings).toEqual([]);
    });

    it('gets its newline before the next append instead of being moved aside', () => {
      const log = openLog();
      log.append({ n: 3 });
      log.close();
      expect(readFileSync(log.path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
      expect(sideFiles()).toEqual([]);
      expect(warnings).toEqual([]);
    });
  });

  it('returns a middle line that is not JSON as it is: only the last line can be torn', () => {
    writeFileSync(join(dir, 'log.jsonl'), '{"n":1}\nnot json\n{"n":3}\n');
    expect(
      openLog()
        .readBackward()
        .map((line) => line.text),
    ).toEqual(['{"n":3}', 'not json', '{"n":1}']);
    expect(warnings).toEqual([]);
  });

  it('sync and close are safe before anything was written', () => {
    const log = openLog();
    log.sync();
    log.close();
    expect(existsSync(log.path)).toBe(false);
  });
});

describe('a log path that is a FIFO', () => {
  it('is refused by reads and appends at once instead of blocking the process', () => {
    const path = join(dir, 'log.jsonl');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    // Code that opened the FIFO blocking would get this writer's line instead of freezing the test run.
    // Its text from a file, not from our stdin pipe: a blocked event loop could not feed that pipe.
    writeFileSync(join(dir, 'line.txt'), '{"from":"the writer"}\n');
    const writer = spawn('dd', [`if=${join(dir, 'line.txt')}`, `of=${path}`, 'conv=nocreat,notrunc', 'status=none'], { stdio: 'ignore' });
    try {
      const log = openLog();
      expect(() => log.readForward()).toThrow(`"${path}" is a FIFO (named pipe), not a regular file`);
      expect(() => log.readBackward()).toThrow(NotRegularFileError);
      expect(() => log.append({ a: 1 })).toThrow(NotRegularFileError);
      // The writer still waits for a reader: nothing opened the FIFO.
      expect(writer.exitCode).toBeNull();
    } finally {
      writer.kill('SIGKILL');
    }
  });
});
