import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// `legion log` on a conversation where a delegate overwrote a file: the built binary, its agents
// on the real Anthropic and OpenAI SDKs against aimock on 127.0.0.1.
const PROCESS_LIMIT_MS = 45_000;

describe('legion log shows what a past file change did', () => {
  const workspace = useWorkspace('legion-log-changes-');
  const { mock, env, useModel } = workspace;

  const legion = (args: string[]) =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env(), NO_COLOR: '1' }, input: '', timeoutMs: PROCESS_LIMIT_MS });

  it('an overwrite is followed by the diff it kept, removed lines included, after the file has moved on', async () => {
    writeFileSync(join(workspace.dir, 'notes.md'), '# Notes\nkeep this\nold line one\nold line two\nkeep that\n');
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    const delegation = { to: 'developer', message: 'Rewrite notes.md' };
    const write = { path: 'notes.md', content: '# Notes\nkeep this\nnew line\nkeep that\n' };
    mock.on(
      { model: 'claude-test', userMessage: 'Tidy the notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', userMessage: 'Tidy the notes', hasToolResult: true }, { content: 'Tidied.' });
    mock.on(
      { model: 'gpt-test', userMessage: 'Rewrite notes.md', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify(write) }] },
    );
    mock.on({ model: 'gpt-test', userMessage: 'Rewrite notes.md', hasToolResult: true }, { content: 'Rewritten.' });

    const run = await legion(['run', '--approve', 'auto', 'Tidy the notes']);
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(workspace.dir, 'notes.md'), 'utf8')).toContain('new line');
    writeFileSync(join(workspace.dir, 'notes.md'), 'moved on\n');

    const log = await legion(['log', 'coordinator__developer']);
    expect(log.status, log.stderr).toBe(0);
    const lines = log.stdout.split('\n');
    const call = lines.findIndex((line) => line.startsWith('  ⚙ file_write'));
    expect(call).toBeGreaterThan(-1);
    expect(lines.slice(call + 1, call + 8)).toEqual([
      '    @@ -1,5 +1,4 @@',
      '     # Notes',
      '     keep this',
      '    -old line one',
      '    -old line two',
      '    +new line',
      '     keep that',
    ]);
    // The diff ends where the call's lines do: the next message follows.
    expect(lines[call + 8]).toMatch(/^developer \d{4}-/);
    expect(log.stdout).not.toContain('moved on');
  }, 60_000);
});
