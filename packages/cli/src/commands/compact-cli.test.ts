import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { SUMMARY_SYSTEM_MARK } from '@legion-collective/core/internal';
import { startWindowLimitedServer, type WindowLimitedServer } from '@legion-collective/core/testing';
import { StreamLineSchema } from '../headless/stream-line.js';
import { runLegion } from '../legion-process.test-support.js';

describe('legion compact (the built binary)', () => {
  let server: WindowLimitedServer;
  let dir: string;
  beforeAll(async () => {
    server = await startWindowLimitedServer({
      window: 100_000,
      respond: (request) => ({
        text: JSON.stringify(request.body['system'] ?? '').includes(SUMMARY_SYSTEM_MARK)
          ? 'Summary: the user asked about turns 0 to 2.'
          : 'Noted.',
      }),
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-compact-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env['PATH'],
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir, '.xdg'),
    ANTHROPIC_API_KEY: 'test',
    ANTHROPIC_BASE_URL: server.anthropicURL,
  });

  it('summarizes the older part of the entry agent’s context, says what it did, and refuses bad targets clearly', async () => {
    expect((await runLegion(['init'], { cwd: dir, env: env() })).status).toBe(0);
    const participants = join(dir, '.legion/collective/participants');
    const entry = JSON.parse(readFileSync(join(dir, '.legion/config.json'), 'utf8')) as { entryAgent?: string };
    const agentId = entry.entryAgent ?? 'coordinator';
    const file = join(participants, `${agentId}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        { ...JSON.parse(readFileSync(file, 'utf8')), model: { provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL } },
        null,
        2,
      ),
    );

    const legion = Legion.open({ root: dir, env: env(), globalConfigFile: join(dir, '.xdg/none.json') });
    const session = await legion.sessions.create();
    for (let turn = 0; turn < 3; turn++) expect(await legion.send(session, `Turn ${turn}`)).toMatchObject({ status: 'success' });
    await legion.close();

    const run = await runLegion(['compact'], { cwd: dir, env: env() });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `Compacted user__${agentId}: 4 messages summarized by anthropic/claude-test; context ${run.stdout.match(/context ([\d,]+ → [\d,]+) tokens/)?.[1]} tokens. The full history stays in the log (legion log).\n`,
    );
    expect(run.status).toBe(0);
    const lines = readFileSync(join(dir, `.legion/sessions/${session.id}/conversations/user__${agentId}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line['kind'] === 'message')).toHaveLength(6);
    expect(lines.at(-1)).toMatchObject({
      kind: 'compaction',
      reason: 'manual',
      summary: 'Summary: the user asked about turns 0 to 2.',
      keptMessages: 2,
      compacted: { count: 4 },
    });

    const json = await runLegion(['compact', '--json', '--session', session.id, '--conversation', `user__${agentId}`], {
      cwd: dir,
      env: env(),
    });
    expect(JSON.parse(json.stdout)).toEqual({
      sessionId: session.id,
      conversationId: `user__${agentId}`,
      status: 'nothing',
      why: 'everything in the context is its newest turn (or the protected recent part)',
    });

    const both = await runLegion(['compact', '--to', agentId, '--conversation', 'a__b'], { cwd: dir, env: env() });
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('Give --to AGENT or --conversation ID, not both');
    const missing = await runLegion(['compact', '--conversation', `${agentId}__nobody`], { cwd: dir, env: env() });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain(`has no conversation "${agentId}__nobody". Its conversations: user__${agentId}.`);
    const help = await runLegion(['compact', '--help'], { cwd: dir, env: env() });
    expect(help.stdout).toContain('legion compact --to developer');
  });

  it('legion run --output stream-json prints a context:compacted line when the run compacts the context', async () => {
    expect((await runLegion(['init'], { cwd: dir, env: env() })).status).toBe(0);
    const entry = JSON.parse(readFileSync(join(dir, '.legion/config.json'), 'utf8')) as { entryAgent?: string };
    const agentId = entry.entryAgent ?? 'coordinator';
    const file = join(dir, '.legion/collective/participants', `${agentId}.json`);
    const participant = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      file,
      JSON.stringify({ ...participant, model: { provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL } }, null, 2),
    );
    const legion = Legion.open({ root: dir, env: env(), globalConfigFile: join(dir, '.xdg/none.json') });
    const session = await legion.sessions.create();
    for (let turn = 0; turn < 3; turn++) expect(await legion.send(session, `Turn ${turn}`)).toMatchObject({ status: 'success' });
    await legion.close();
    // A known window, and a threshold the next request passes: the run compacts before it asks the model.
    writeFileSync(
      file,
      JSON.stringify(
        {
          ...participant,
          model: { provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL },
          context: { window: 100_000, summarizeAtTokens: 200, protectRecentTokens: 0 },
        },
        null,
        2,
      ),
    );

    const run = await runLegion(['run', '--output', 'stream-json', 'Turn 3'], { cwd: dir, env: env() });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => StreamLineSchema.parse(JSON.parse(line)));
    const compacted = lines.filter((line) => line.type === 'context:compacted');
    expect(compacted).toEqual([
      {
        type: 'context:compacted',
        sessionId: session.id,
        conversationId: `user__${agentId}`,
        participantId: agentId,
        reason: 'auto',
        messageIds: { first: expect.any(String), last: expect.any(String), count: 6 },
        tokensBefore: expect.any(Number),
        tokensAfter: expect.any(Number),
        summarizer: { provider: 'anthropic', model: 'claude-test' },
      },
    ]);
    const [line] = compacted;
    if (line?.type !== 'context:compacted') throw new Error('no compaction line');
    expect(line.tokensAfter).toBeLessThan(line.tokensBefore);
    // It comes before the turn's answer, as the compaction came before the request.
    expect(lines.findIndex((entry) => entry.type === 'context:compacted')).toBeLessThan(
      lines.findIndex((entry) => entry.type === 'turn:end'),
    );
  });
});
