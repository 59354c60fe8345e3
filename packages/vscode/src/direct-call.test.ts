import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { runDirectCall } from './direct-call.js';

describe('runDirectCall (the API executeTool)', () => {
  let test: TestLegion;
  afterEach(async () => {
    await test?.cleanup();
  });

  function workspace(policies: Record<string, unknown>): TestLegion {
    const made = createTestLegion({ participants: [userParticipant(), agentParticipant('lead')] });
    const file = join(made.root, '.legion', 'config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), policies }, null, 2));
    return { ...made, legion: made.reopen() };
  }

  it('refuses a tool the workspace denies, without asking', async () => {
    test = workspace({ file_write: 'deny' });
    const asked: string[] = [];
    const result = await runDirectCall(
      test.legion,
      'file_write',
      { path: 'x.txt', content: 'no' },
      async (question) => (asked.push(question), true),
    );
    expect(result).toMatchObject({ status: 'error', error: expect.stringContaining('denied') });
    expect(asked).toEqual([]);
    expect(existsSync(join(test.root, 'x.txt'))).toBe(false);
  });

  it('asks before a call that needs approval, and runs it only when approved', async () => {
    test = workspace({});
    const refused = await runDirectCall(test.legion, 'file_write', { path: 'x.txt', content: 'one' }, async () => false);
    expect(refused).toMatchObject({ status: 'error', error: expect.stringContaining('did not approve') });
    expect(existsSync(join(test.root, 'x.txt'))).toBe(false);
    const approved = await runDirectCall(test.legion, 'file_write', { path: 'x.txt', content: 'two' }, async (question) =>
      question.includes('file_write'),
    );
    expect(approved).toMatchObject({ status: 'success' });
    expect(readFileSync(join(test.root, 'x.txt'), 'utf8')).toBe('two');
  });

  it('runs a read without asking', async () => {
    test = workspace({});
    writeFileSync(join(test.root, 'r.txt'), 'readable');
    const result = await runDirectCall(test.legion, 'file_read', { path: 'r.txt' }, async () => {
      throw new Error('asked for a read');
    });
    expect(result).toMatchObject({ status: 'success', content: expect.stringContaining('readable') });
  });

  it('refuses a tool Legion does not have by itself, naming the tools there are, and asks nothing', async () => {
    test = workspace({});
    const result = await runDirectCall(test.legion, 'file_shred', { path: 'r.txt' }, async () => {
      throw new Error('asked for a missing tool');
    });
    expect(result).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Legion has no tool "file_shred", so nothing was run'),
    });
    expect(result.status === 'error' && result.error).toContain('file_read');
  });
});
