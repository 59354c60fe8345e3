import { spawn } from 'node:child_process';
import { StreamLineSchema } from './headless/stream-line.js';
import { LEGION, runLegion, type LegionRun } from './legion-process.test-support.js';
import { useWorkspace } from './workspace.test-support.js';

// How a failed or cancelled turn ends, through the real binary and the Anthropic SDK against aimock:
// the next message is answered on its own, and its request tells the model plainly what became of
// the one before (never merged with it, never the refused content again).
describe('a failed or cancelled turn does not poison the conversation', () => {
  const workspace = useWorkspace('legion-turn-endings-');
  const { mock } = workspace;

  const legion = (args: string[]): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...workspace.env() }, timeoutMs: 60_000 });
  /** The conversation messages of the model's requests as the server received them (aimock's normalized form, system prompt left out), in order. */
  const requests = (): Array<Array<{ role: string; content: unknown }>> =>
    mock
      .getRequests()
      .map((entry) =>
        (entry.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((message) => message.role !== 'system'),
      );
  const text = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

  beforeEach(() => workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-endings', baseURL: mock.url }));

  it('after a provider 400 the next message works, and its request carries the failure, not the refused text', async () => {
    mock.on(
      { userMessage: 'Summarize \u{1F4A5} this' },
      { error: { message: 'messages.0.content: unsupported content', type: 'invalid_request_error' }, status: 400 },
    );
    mock.on({ userMessage: 'What is 2+2?' }, { content: '4' });

    const failed = await legion(['run', 'Summarize \u{1F4A5} this']);
    expect(failed.status, failed.stderr).toBe(1);
    expect(failed.stderr).toContain('400');

    const next = await legion(['run', 'What is 2+2?']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toBe('4\n');

    const sent = requests().at(-1)!;
    const all = sent.map((message) => text(message.content)).join('\n');
    // The refused message is not sent again; its place says why, and the model reads how the turn ended.
    expect(all).not.toContain('Summarize \u{1F4A5} this');
    expect(all).toContain('[left out: the provider refused the request that carried this (provider_bad_request)');
    expect(all).toMatch(/\[This turn failed before it finished \(provider_bad_request: .*400.*\)\. The request above was not answered/);
    // The new message is a message of its own, the last one.
    expect(sent.at(-1)).toMatchObject({ role: 'user' });
    expect(text(sent.at(-1)!.content)).toBe('What is 2+2?');
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  }, 120_000);

  it('after a cancel (SIGINT) the next message is answered on its own, and the model is told the essay was cancelled', async () => {
    const essay = 'Write a long essay about lighthouses';
    mock.on(
      { userMessage: essay },
      { content: 'Lighthouses have guided ships for centuries. '.repeat(40) },
      { latency: 100, chunkSize: 8 },
    );
    mock.on({ userMessage: 'What is 2+2?' }, { content: '4' });

    const child = spawn(process.execPath, [LEGION, 'run', '--output', 'stream-json', essay], {
      cwd: workspace.dir,
      env: { ...process.env, ...workspace.env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The essay is streaming (its text arrives); then Ctrl-C.
    await expect.poll(() => stdout.includes('"type":"text:delta"')).toBe(true);
    child.kill('SIGINT');
    expect(await closed, stderr).toBe(1);
    expect(stderr).toContain('cancelled');
    // stream-json says what became of the turn: cancelled (not merely "error", which `status` keeps saying for old scripts).
    const ends = stdout
      .trimEnd()
      .split('\n')
      .map((line) => StreamLineSchema.parse(JSON.parse(line)))
      .filter((line) => line.type === 'turn:end');
    expect(
      ends.map((line) => ({ participantId: line.participantId, outcome: line.outcome, code: line.code, status: line.status })),
    ).toEqual([{ participantId: 'coordinator', outcome: 'cancelled', code: 'cancelled', status: 'error' }]);

    const next = await legion(['run', '--output', 'json', 'What is 2+2?']);
    expect(next.status, next.stderr).toBe(0);
    const report = JSON.parse(next.stdout) as {
      reply: string;
      usage: { total: { calls: number } };
      sessionUsage: { calls: number; inputTokens: number; outputTokens: number };
    };
    expect(report.reply).toBe('4');
    // The cancelled call was paid for: counted (as estimated), not "0 tokens".
    expect(report.usage.total.calls).toBe(1);
    expect(report.sessionUsage.calls).toBe(2);
    expect(report.sessionUsage.outputTokens).toBeGreaterThan(0);

    const sent = requests().at(-1)!;
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(text(sent[0]!.content)).toContain(essay);
    expect(text(sent[1]!.content)).toContain(
      '[This turn was cancelled before it finished. The request above was not answered; do not answer it now unless it is asked again.]',
    );
    expect(text(sent[2]!.content)).toBe('What is 2+2?');
  }, 120_000);
});
