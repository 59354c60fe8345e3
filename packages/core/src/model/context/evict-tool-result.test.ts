import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResultBlock } from '../../kernel/message.js';
import { FileSessionBackend } from '../../store/file/FileSessionBackend.js';
import { MemorySessionBackend } from '../../store/memory/MemorySessionBackend.js';
import { SessionArtifacts } from '../../store/SessionArtifacts.js';
import { cutToBytes, evictedArtifactName, previewBudget, ToolResultEviction } from './evict-tool-result.js';
import { countTextTokens } from './text-tokens.js';
import { loadTokenCounter } from './token-count.js';

const SESSION = '20250101-000000-abcdef';
const result = (content: string, extra: Partial<ToolResultBlock> = {}): ToolResultBlock => ({
  type: 'tool_result',
  toolUseId: 'toolu_1',
  content,
  ...extra,
});
const log = (lines: number): string =>
  Array.from({ length: lines }, (_, index) => `entry ${index + 1}: request served in ${index % 97} ms`).join('\n');

describe('ToolResultEviction', () => {
  let artifacts: SessionArtifacts;
  beforeEach(() => {
    artifacts = new SessionArtifacts(new MemorySessionBackend().artifacts, SESSION);
  });
  const evictor = (extra: Partial<ConstructorParameters<typeof ToolResultEviction>[0]> = {}) =>
    new ToolResultEviction({ artifacts, evictAboveTokens: 700, artifactMaxBytes: 10 * 1024 * 1024, canReadArtifacts: true, ...extra });

  it('leaves a result under the threshold as it is, and stores nothing', async () => {
    const block = result(log(20));
    expect(await evictor().apply(block)).toBe(block);
    expect(await artifacts.list()).toEqual([]);
  });

  it('evicts an error result the same way, keeping it an error', async () => {
    const failure = `Build failed:\n${log(2_000)}`;
    const evicted = await evictor().apply(result(failure, { isError: true }));
    expect(evicted.isError).toBe(true);
    expect(evicted.content).toMatch(/^\[Evicted to artifact "tool-toolu_1\.txt": this result \(\d+ bytes, 2001 lines, \d+ tokens\)/);
    expect(evicted.content).toContain('\nBuild failed:\nentry 1:');
    expect(evicted.content).toMatch(/entry 2000: request served in \d+ ms$/);
    expect(countTextTokens(await loadTokenCounter(), evicted.content)).toBeLessThan(700);
    expect(await artifacts.getText('tool-toolu_1.txt')).toBe(failure);
    expect(evictedArtifactName(evicted.content)).toBe('tool-toolu_1.txt');
  });

  it('keeps at most artifactMaxBytes, its head and tail, saying so', async () => {
    const text = log(5_000);
    const evicted = await evictor({ artifactMaxBytes: 50_000 }).apply(result(text));
    const stored = (await artifacts.getText('tool-toolu_1.txt'))!;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(50_000 + 40);
    expect(stored.startsWith('entry 1: ')).toBe(true);
    expect(stored.endsWith(text.slice(-1000))).toBe(true);
    expect(stored).toMatch(/\n… \[\d+ bytes cut\] …\n/);
    expect(evicted.content).toContain(
      `It was ${Buffer.byteLength(text)} bytes; only its first and last 50000 bytes are kept (context.artifactMaxBytes).`,
    );
  });

  it('names artifacts from the tool use id, safely, and never reuses a name', async () => {
    const first = await evictor().apply(result(log(2_000), { toolUseId: 'call/../0' }));
    const second = await evictor().apply(result(log(2_001), { toolUseId: 'call/../0' }));
    expect(evictedArtifactName(first.content)).toBe('tool-call___0.txt');
    expect(evictedArtifactName(second.content)).toBe('tool-call___0-2.txt');
    expect((await artifacts.list()).map((artifact) => artifact.name)).toEqual(['tool-call___0-2.txt', 'tool-call___0.txt']);
  });

  it('says when the agent cannot read artifacts back', async () => {
    const evicted = await evictor({ canReadArtifacts: false }).apply(result(log(2_000)));
    expect(evicted.content).toContain('artifact_read, which reads artifacts, is not among your tools');
  });

  it('previews a single huge line cut inside, within the budget', async () => {
    const line = 'x'.repeat(2 * 1024 * 1024);
    const evicted = await evictor().apply(result(line));
    expect(evicted.content).toMatch(/^\[Evicted to artifact "tool-toolu_1\.txt": this result \(2097152 bytes, 1 line, about \d+ tokens\)/);
    expect(evicted.content.length).toBeLessThan(10_000);
    expect(countTextTokens(await loadTokenCounter(), evicted.content)).toBeLessThan(700);
    expect((await artifacts.getText('tool-toolu_1.txt'))?.length).toBe(line.length);
  });

  it('keeps a bounded cut and says so when the artifact cannot be written, instead of throwing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'legion-evict-'));
    try {
      // Where the artifacts folder would go there is a file: every write fails, as a full or read-only disk would.
      mkdirSync(join(root, '.legion', 'sessions', SESSION), { recursive: true });
      writeFileSync(join(root, '.legion', 'sessions', SESSION, 'artifacts'), 'not a folder');
      const broken = new SessionArtifacts(new FileSessionBackend({ root }).artifacts, SESSION);
      const evicted = await evictor({ artifacts: broken }).apply(result(log(5_000)));
      expect(evicted.content).toMatch(
        /^\[This result \(\d+ bytes, 5000 lines, \d+ tokens\) is too large for your context and could not be stored as an artifact \(.+\), so only its first and last lines are kept/,
      );
      expect(evicted.content).toContain('entry 1: ');
      expect(countTextTokens(await loadTokenCounter(), evicted.content)).toBeLessThan(700);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('budgets previews well under the threshold, whatever the profile', () => {
    expect(previewBudget(700)).toBe(280);
    expect(previewBudget(20_000)).toBe(2_000);
  });
});

describe('cutToBytes', () => {
  it('cuts on character boundaries', () => {
    const { text, cutBytes } = cutToBytes('é'.repeat(100), 51);
    expect(text).toBe(`${'é'.repeat(12)}\n… [152 bytes cut] …\n${'é'.repeat(12)}`);
    expect(cutBytes).toBe(152);
    expect(cutToBytes('short', 100)).toEqual({ text: 'short', cutBytes: 0 });
  });
});
