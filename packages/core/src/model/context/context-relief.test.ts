import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import type { ModelConfig, ParticipantInput } from '../../team/collective/participant.js';
import type { Session } from '../../engine/conversation/Session.js';
import { keyEnv } from '../providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';
import { countTextTokens } from './text-tokens.js';
import { loadTokenCounter } from './token-count.js';

type Body = { messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }> };
type ResultBlock = { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

/** The tool_result blocks of an Anthropic request body, by tool_use id. */
function resultsOf(body: Body): Map<string, ResultBlock> {
  const results = new Map<string, ResultBlock>();
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content)
      if (block.type === 'tool_result') results.set(block.tool_use_id as string, block as unknown as ResultBlock);
  }
  return results;
}

describe('context relief on real provider SDKs: eviction to artifacts, artifact_read, pruning', () => {
  const { server, createTestLegion } = useLlmServer();
  let test: TestLegion | undefined;

  // Models the table does not know get a small window (8k): the small profile, evicting above 1,400 tokens (700 of 4,096, scaled).
  const claude = (): ModelConfig => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL });
  const gpt = (): ModelConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: server.openaiURL });
  const agent = (id: string, model: ModelConfig, extra: Record<string, unknown> = {}): ParticipantInput =>
    ({ ...agentParticipant(id), model, ...extra }) as ParticipantInput;

  /** An artifact as stored: on disk for the file backend (whole, in its own file), through the backend for memory. */
  async function artifact(session: Session, name: string): Promise<string | undefined> {
    if (test!.backend === 'file') {
      const path = `${test!.root}/.legion/sessions/${session.id}/artifacts/${name}`;
      expect(statSync(path).isFile()).toBe(true);
      return readFileSync(path, 'utf8');
    }
    return session.artifacts.getText(name);
  }

  it('evicts a 2 MB shell output: the model gets a preview, the artifact holds it whole, artifact_read pages and greps it', async () => {
    const lines = 90_000;
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('worker', claude(), { tools: ['shell_run', 'artifact_read'], delegation: 'none', policies: { shell_run: 'auto' } }),
      ],
      entryAgent: 'worker',
      env: keyEnv(server.anthropicURL),
    });
    const command = `seq -f 'line %.0f of the output' 1 ${lines}`;
    server.mock.on(
      { toolCallId: 'toolu_big' },
      {
        toolCalls: [
          { id: 'toolu_page', name: 'artifact_read', arguments: JSON.stringify({ name: 'tool-toolu_big.txt', offset: 1002, limit: 5 }) },
        ],
      },
    );
    server.mock.on(
      { toolCallId: 'toolu_page' },
      {
        toolCalls: [
          {
            id: 'toolu_grep',
            name: 'artifact_read',
            arguments: JSON.stringify({ name: 'tool-toolu_big.txt', grep: 'line 4242 of', context: 1 }),
          },
        ],
      },
    );
    server.mock.on({ toolCallId: 'toolu_grep' }, { content: 'Found it.' });
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_big', name: 'shell_run', arguments: JSON.stringify({ command }) }] },
    );
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Print the log')).toMatchObject({ status: 'success', reply: 'Found it.' });

    const stdout = Array.from({ length: lines }, (_, index) => `line ${index + 1} of the output`).join('\n');
    const whole = `exit code 0\n[stdout]\n${stdout}`;
    expect(Buffer.byteLength(whole)).toBeGreaterThan(2_000_000);
    // Booleans, not toBe: a failure would print 2 MB.
    expect((await artifact(session, 'tool-toolu_big.txt')) === whole).toBe(true);

    const bodies = server.anthropicBodies() as Body[];
    expect(bodies).toHaveLength(4);
    const count = await loadTokenCounter();
    const preview = resultsOf(bodies[1]!).get('toolu_big')!.content;
    expect(JSON.stringify(bodies[1]).length).toBeLessThan(20_000);
    expect(preview).toMatch(/^\[Evicted to artifact "tool-toolu_big\.txt": this result \(\d+ bytes, 90002 lines, (about )?\d+ tokens\)/);
    expect(preview).toContain('artifact_read {"name": "tool-toolu_big.txt", "offset": 1, "limit": 100}');
    expect(preview).toContain('exit code 0\n[stdout]\nline 1 of the output\nline 2 of the output');
    expect(preview).toMatch(/line 89999 of the output\nline 90000 of the output$/);
    expect(preview).toMatch(/… \[lines \d+-\d+ of 90002, \d+ bytes not shown\] …/);
    expect(countTextTokens(count, preview)).toBeLessThan(700);

    const page = resultsOf(bodies[2]!).get('toolu_page')!.content;
    expect(page).toBe(
      [
        `tool-toolu_big.txt (90002 lines, ${Buffer.byteLength(whole)} bytes)`,
        '  1002  line 1000 of the output',
        '  1003  line 1001 of the output',
        '  1004  line 1002 of the output',
        '  1005  line 1003 of the output',
        '  1006  line 1004 of the output',
        '(lines 1002-1006 of 90002; read on with offset 1007)',
      ].join('\n'),
    );
    const grep = resultsOf(bodies[3]!).get('toolu_grep')!.content;
    expect(grep).toContain('  4243- line 4241 of the output\n  4244: line 4242 of the output\n  4245- line 4243 of the output');
    expect(grep).toContain('(1 matching line from line 1 to the end)');
    // Reading never evicts again: every page stays under the threshold.
    for (const body of bodies)
      for (const result of resultsOf(body).values()) expect(countTextTokens(count, result.content)).toBeLessThan(700);

    // The log holds what the model saw, not the 2 MB.
    if (test.backend === 'file')
      expect(statSync(`${test.root}/.legion/sessions/${session.id}/conversations/user__worker.jsonl`).size).toBeLessThan(30_000);
    const logged = (await session.conversation({ initiator: 'user', responder: 'worker' }).history()).flatMap((message) => message.content);
    expect(logged.find((block) => block.type === 'tool_result' && block.toolUseId === 'toolu_big')).toMatchObject({ content: preview });
  });

  it("evicts a delegate's huge communicate reply in the caller's context", async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('coordinator', claude(), { tools: ['communicate', 'artifact_read'], delegation: ['developer'] }),
        agent('developer', gpt(), { tools: 'none', delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
    });
    const report = Array.from({ length: 3_000 }, (_, index) => `finding ${index + 1}: the module is fine`).join('\n');
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: '{"to":"developer","message":"Review everything"}' }] },
    );
    server.mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'Reviewed.' });
    server.mock.on({ model: 'gpt-test' }, { content: report }, { chunkSize: 4096 });
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Review the code')).toMatchObject({ status: 'success', reply: 'Reviewed.' });

    const [, second] = server.anthropicBodies() as Body[];
    const result = resultsOf(second!).get('toolu_delegate')!.content;
    expect(result).toMatch(/^\[Evicted to artifact "tool-toolu_delegate\.txt"/);
    expect(result).toContain('finding 1: the module is fine');
    expect(result).toMatch(/finding 3000: the module is fine$/);
    expect(countTextTokens(await loadTokenCounter(), result)).toBeLessThan(700);
    expect(await artifact(session, 'tool-toolu_delegate.txt')).toBe(report);
    // The delegate's own log keeps its reply whole: it is its reply, not a tool result.
    const delegateLog = await session.conversation({ initiator: 'coordinator', responder: 'developer' }).history();
    expect(delegateLog.at(-1)!.content).toEqual([{ type: 'text', text: report }]);
  });

  it('prunes old tool results past pruneAtTokens, never the last two user turns, and leaves the log whole', async () => {
    const pageText = (page: number): string =>
      Array.from({ length: 150 }, (_, index) => `page ${page} paragraph ${index}: lorem ipsum dolor sit amet`).join('\n');
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('reader', claude(), {
          tools: ['fetch_page', 'artifact_read'],
          delegation: 'none',
          context: { evictAboveTokens: 5_000, pruneAtTokens: 3_000, protectRecentTokens: 500 },
        }),
      ],
      entryAgent: 'reader',
      env: keyEnv(server.anthropicURL),
    });
    test.legion.tools.register(
      defineTool({
        name: 'fetch_page',
        description: 'Fetches a page',
        effect: 'read',
        inputSchema: z.object({ page: z.number() }),
        execute: async (input) => ({ status: 'success', data: pageText(input.page) }),
      }),
    );
    const words = ['first', 'second', 'third'];
    words.forEach((_word, index) => server.mock.on({ toolCallId: `toolu_p${index + 1}` }, { content: `Page ${index + 1} read.` }));
    words.forEach((word, index) =>
      server.mock.on(
        { userMessage: word, hasToolResult: false },
        { toolCalls: [{ id: `toolu_p${index + 1}`, name: 'fetch_page', arguments: JSON.stringify({ page: index + 1 }) }] },
      ),
    );
    const session = await test.legion.sessions.create();
    for (const word of words) expect(await test.legion.send(session, word)).toMatchObject({ status: 'success' });

    const bodies = server.anthropicBodies() as Body[];
    expect(bodies).toHaveLength(6);
    const count = await loadTokenCounter();
    expect(countTextTokens(count, pageText(1))).toBeGreaterThan(1_500);
    // Turn two: past the threshold at its second step, but page 1 belongs to the last two user turns.
    expect(resultsOf(bodies[3]!).get('toolu_p1')!.content).toBe(pageText(1));
    expect(resultsOf(bodies[3]!).get('toolu_p2')!.content).toBe(pageText(2));
    // Turn three: page 1 is older than the last two user turns and gives way to a stub naming its artifact.
    for (const body of [bodies[4]!, bodies[5]!]) {
      const results = resultsOf(body);
      expect(results.get('toolu_p1')!.content).toMatch(
        /^\[Pruned from your context: this earlier result of fetch_page \(\d+ tokens\) is kept whole as artifact "pruned-[0-9a-f-]+-0\.txt"\. Read it back with artifact_read/,
      );
      expect(results.get('toolu_p2')!.content).toBe(pageText(2));
    }
    expect(resultsOf(bodies[5]!).get('toolu_p3')!.content).toBe(pageText(3));
    const name = /artifact "([^"]+)"/.exec(resultsOf(bodies[5]!).get('toolu_p1')!.content)![1]!;
    expect(await artifact(session, name)).toBe(pageText(1));
    // The log is unchanged: every result whole.
    const logged = (await session.conversation({ initiator: 'user', responder: 'reader' }).history()).flatMap((message) => message.content);
    expect(logged.filter((block) => block.type === 'tool_result').map((block) => block.type === 'tool_result' && block.content)).toEqual([
      pageText(1),
      pageText(2),
      pageText(3),
    ]);
  });
});
