import type { Message } from '../../kernel/message.js';
import { MemorySessionBackend } from '../../store/memory/MemorySessionBackend.js';
import { SessionArtifacts } from '../../store/SessionArtifacts.js';
import { tokenMeasure } from './message-tokens.js';
import { minimumReclaim, pruneToolResults, type PruneOptions } from './prune-tool-results.js';
import { loadTokenCounter } from './token-count.js';

const frame = { system: 'You read pages.', tools: [] };
let next = 0;
const message = (role: Message['role'], content: Message['content']): Message => ({
  id: `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`,
  at: '2025-01-01T00:00:00.000Z',
  role,
  content,
});
const page = (index: number): string =>
  Array.from({ length: 60 }, (_, line) => `page ${index} line ${line}: lorem ipsum dolor sit amet`).join('\n');

/** A user turn of a long agentic run (a tool call and its result per step), then two short user turns. */
function run(steps: number): Message[] {
  const messages = [message('user', [{ type: 'text', text: 'Read every page.' }])];
  for (let index = 1; index <= steps; index++) {
    messages.push(message('assistant', [{ type: 'tool_use', id: `toolu_${index}`, name: 'fetch_page', input: { page: index } }]));
    messages.push(message('user', [{ type: 'tool_result', toolUseId: `toolu_${index}`, content: page(index) }]));
  }
  messages.push(
    message('assistant', [{ type: 'text', text: 'All read.' }]),
    message('user', [{ type: 'text', text: 'Thanks. Anything odd?' }]),
  );
  messages.push(message('assistant', [{ type: 'text', text: 'No.' }]), message('user', [{ type: 'text', text: 'Then summarize.' }]));
  return messages;
}

describe('pruneToolResults', () => {
  let artifacts: SessionArtifacts;
  let options: PruneOptions;
  beforeEach(() => {
    artifacts = new SessionArtifacts(new MemorySessionBackend().artifacts, '20250101-000000-abcdef');
    options = { pruneAtTokens: 3_000, protectRecentTokens: 1_500, artifacts, canReadArtifacts: true };
  });
  const contents = (messages: readonly Message[]): string[] =>
    messages.flatMap((item) => item.content.flatMap((block) => (block.type === 'tool_result' ? [block.content] : [])));

  it('leaves a request under pruneAtTokens as it is', async () => {
    const messages = run(2);
    expect(await pruneToolResults(messages, frame, options)).toBe(messages);
  });

  it('stubs old results beyond the protected recent tokens, keeps the newest whole, and changes none of the given messages', async () => {
    const messages = run(12);
    const snapshot = structuredClone(messages);
    const pruned = await pruneToolResults(messages, frame, options);
    const results = contents(pruned);
    const stubbed = results.filter((content) => content.startsWith('[Pruned from your context'));
    expect(stubbed.length).toBeGreaterThan(0);
    // Oldest first; the newest (within protectRecentTokens) untouched.
    expect(results.slice(0, stubbed.length)).toEqual(stubbed);
    expect(results.slice(stubbed.length)).toEqual(
      Array.from({ length: 12 - stubbed.length }, (_, index) => page(stubbed.length + index + 1)),
    );
    expect(results.at(-1)).toBe(page(12));
    expect(messages).toEqual(snapshot);
    // Each stub names the artifact holding its result whole.
    for (const [index, stub] of stubbed.entries()) {
      const name = /artifact "([^"]+)"/.exec(stub)![1]!;
      expect(await artifacts.getText(name)).toBe(page(index + 1));
    }
    // The next step prunes the same way, storing nothing again.
    const stored = (await artifacts.list()).length;
    expect(contents(await pruneToolResults(messages, frame, options))).toEqual(results);
    expect((await artifacts.list()).length).toBe(stored);
  });

  it('never prunes within the last two user turns, however large', async () => {
    const messages = run(12).slice(0, -4);
    expect(await pruneToolResults(messages, frame, { ...options, protectRecentTokens: 0 })).toBe(messages);
  });

  it('prunes nothing when what it could reclaim is not worth it', async () => {
    const messages = run(12);
    expect(await pruneToolResults(messages, frame, { ...options, pruneAtTokens: 100_000 })).toBe(messages);
    // Past the threshold, but all but the oldest result is protected: less than the minimum to reclaim (a tenth of the threshold).
    const measure = tokenMeasure(await loadTokenCounter());
    const total = messages.reduce((sum, item) => sum + measure(item), 0);
    const oldest = measure(messages[2]!);
    expect(oldest).toBeLessThan(minimumReclaim(total - 1));
    expect(
      await pruneToolResults(messages, frame, {
        ...options,
        pruneAtTokens: total - 1,
        protectRecentTokens: total - oldest - measure(messages[0]!) - measure(messages[1]!),
      }),
    ).toBe(messages);
    expect(minimumReclaim(2_600)).toBe(260);
    expect(minimumReclaim(500_000)).toBe(20_000);
  });
});
