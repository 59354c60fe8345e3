import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trace, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion, writeNoteTool } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import type { ScriptStep } from '../../model/providers/scripted/ScriptedProvider.js';
import type { Legion } from '../../Legion.js';

/** The OpenTelemetry SDK with an in-memory exporter, registered globally as an application would. */
function useSdk(): Pick<InMemorySpanExporter, 'getFinishedSpans' | 'reset'> {
  // One per test: shutting the provider down stops its exporter for good.
  let exporter: InMemorySpanExporter | undefined;
  let provider: BasicTracerProvider | undefined;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  });
  afterEach(async () => {
    trace.disable();
    await provider?.shutdown();
  });
  return { getFinishedSpans: () => exporter!.getFinishedSpans(), reset: () => exporter!.reset() };
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  expect(
    found.map((span) => span.name),
    `exactly one span "${name}" among ${spans.map((span) => span.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
}
/** Every attribute and event attribute value of the spans, as text: where content would show. */
const everything = (spans: readonly ReadableSpan[]): string =>
  JSON.stringify(spans.map((span) => [span.attributes, span.events.map((event) => event.attributes), span.status]));

function lookupTool() {
  return defineTool({
    name: 'lookup',
    description: 'Looks a word up',
    effect: 'read',
    inputSchema: z.object({ word: z.string() }),
    execute: async (input) => ({ status: 'success', data: `${input.word} means SECRET-RESULT` }),
  });
}

/** user → lead → dev → qa; qa runs `qaTool` with `qaInput`, and each answers with what came back. */
function threeLevels(
  qaCall: { name: string; input: Record<string, unknown> },
  options: { env?: NodeJS.ProcessEnv; leadAfter?: ScriptStep[] } = {},
): TestLegion {
  return createTestLegion({
    participants: [
      userParticipant(),
      agentParticipant('lead', { delegation: ['dev'] }),
      agentParticipant('dev', { delegation: ['qa'] }),
      agentParticipant('qa', { delegation: 'none' }),
    ],
    entryAgent: 'lead',
    ...(options.env ? { env: options.env } : {}),
    scripts: {
      lead: [
        { toolCalls: [{ id: 'l1', name: 'communicate', input: { to: 'dev', message: 'Ask qa about SECRET-TASK' } }] },
        { text: 'lead done' },
        ...(options.leadAfter ?? []),
      ],
      dev: [{ toolCalls: [{ id: 'd1', name: 'communicate', input: { to: 'qa', message: 'Check it' } }] }, { text: 'dev done' }],
      qa: [{ toolCalls: [{ id: 'q1', ...qaCall }] }, { text: 'qa done' }],
    },
  });
}

describe('OpenTelemetry spans of turns, model calls and tool calls', () => {
  const exporter = useSdk();
  let test: TestLegion | undefined;
  const others: Legion[] = [];
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await test?.cleanup();
    test = undefined;
  });

  it('one trace per user turn, with invoke_agent → execute_tool communicate → invoke_agent across three levels of delegation', async () => {
    test = threeLevels({ name: 'lookup', input: { word: 'SECRET-ARG' } }, { leadAfter: [{ text: 'again' }] });
    test.legion.tools.register(lookupTool());
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'Do SECRET-TASK')).toMatchObject({ status: 'success', reply: 'lead done' });
    const spans = exporter.getFinishedSpans();

    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const lead = one(spans, 'invoke_agent lead');
    const dev = one(spans, 'invoke_agent dev');
    const qa = one(spans, 'invoke_agent qa');
    expect(parentOf(lead)).toBeUndefined();
    const [leadCommunicate, devCommunicate] = named(spans, 'execute_tool communicate').sort((a, b) =>
      a.attributes['gen_ai.tool.call.id'] === 'l1' ? -1 : b.attributes['gen_ai.tool.call.id'] === 'l1' ? 1 : 0,
    );
    expect(leadCommunicate!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'communicate',
      'gen_ai.tool.call.id': 'l1',
      'gen_ai.conversation.id': 'user__lead',
    });
    expect(parentOf(leadCommunicate!)).toBe(lead.spanContext().spanId);
    expect(parentOf(dev)).toBe(leadCommunicate!.spanContext().spanId);
    expect(parentOf(devCommunicate!)).toBe(dev.spanContext().spanId);
    expect(parentOf(qa)).toBe(devCommunicate!.spanContext().spanId);
    const lookup = one(spans, 'execute_tool lookup');
    expect(parentOf(lookup)).toBe(qa.spanContext().spanId);
    expect(lookup.attributes).toMatchObject({
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'q1',
      'gen_ai.conversation.id': 'dev__qa',
    });

    expect(lead.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'lead',
      'gen_ai.agent.name': 'lead',
      'gen_ai.conversation.id': 'user__lead',
      'legion.session.id': session.id,
      'legion.turn.status': 'success',
    });
    expect(dev.attributes).toMatchObject({ 'gen_ai.agent.id': 'dev', 'gen_ai.conversation.id': 'lead__dev' });
    expect(qa.attributes).toMatchObject({ 'gen_ai.agent.id': 'qa', 'gen_ai.conversation.id': 'dev__qa' });
    // Two model calls per agent, each a chat span under its turn.
    for (const turn of [lead, dev, qa]) {
      const chats = spans.filter((span) => parentOf(span) === turn.spanContext().spanId && span.name.startsWith('chat '));
      expect(chats.map((span) => span.name)).toEqual([
        `chat ${turn.attributes['gen_ai.agent.id']}`,
        `chat ${turn.attributes['gen_ai.agent.id']}`,
      ]);
      expect(chats[0]!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': turn.attributes['gen_ai.agent.id'],
      });
    }
    // No content unless configured: not the message, the tool's arguments or its result.
    expect(everything(spans)).not.toMatch(
      /SECRET|gen_ai\.(input|output)\.messages|gen_ai\.tool\.call\.(arguments|result)|system_instructions/,
    );

    exporter.reset();
    expect(await test.legion.send(session, 'Once more')).toMatchObject({ status: 'success', reply: 'again' });
    const second = exporter.getFinishedSpans();
    expect(second.map((span) => span.name).sort()).toEqual(['chat lead', 'invoke_agent lead']);
    expect(second[0]!.spanContext().traceId).not.toBe(lead.spanContext().traceId);
    test.assertScriptsDone();
  });

  it('content goes into spans when the config asks for it', async () => {
    test = threeLevels({ name: 'lookup', input: { word: 'SECRET-ARG' } });
    const file = join(test.root, '.legion', 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), telemetry: { captureContent: true } }),
    );
    const legion = test.reopen();
    others.push(legion);
    legion.tools.register(lookupTool());
    expect(await legion.send(await legion.sessions.create(), 'Do SECRET-TASK')).toMatchObject({ status: 'success' });
    const spans = exporter.getFinishedSpans();
    expect(JSON.parse(String(one(spans, 'invoke_agent lead').attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Do SECRET-TASK' }] },
    ]);
    expect(JSON.parse(String(one(spans, 'invoke_agent lead').attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'lead done' }] },
    ]);
    const lookup = one(spans, 'execute_tool lookup');
    expect(lookup.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"word":"SECRET-ARG"}',
      'gen_ai.tool.call.result': 'SECRET-ARG means SECRET-RESULT',
    });
    const firstChat = named(spans, 'chat lead').find((span) => String(span.attributes['gen_ai.output.messages']).includes('tool_call'))!;
    expect(JSON.parse(String(firstChat.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Do SECRET-TASK' }] },
    ]);
    expect(String(firstChat.attributes['gen_ai.system_instructions'])).toContain('You are lead.');
  });

  it('content goes into spans with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and the config can still turn it off', async () => {
    test = threeLevels(
      { name: 'lookup', input: { word: 'SECRET-ARG' } },
      { env: { ...process.env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }, leadAfter: [{ text: 'quiet' }] },
    );
    test.legion.tools.register(lookupTool());
    await test.legion.send(await test.legion.sessions.create(), 'Do SECRET-TASK');
    expect(one(exporter.getFinishedSpans(), 'execute_tool lookup').attributes['gen_ai.tool.call.arguments']).toBe('{"word":"SECRET-ARG"}');

    exporter.reset();
    const file = join(test.root, '.legion', 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), telemetry: { captureContent: false } }),
    );
    const legion = test.reopen();
    others.push(legion);
    legion.tools.register(lookupTool());
    await legion.send(await legion.sessions.create(), 'Do SECRET-TASK quietly');
    expect(everything(exporter.getFinishedSpans())).not.toMatch(/SECRET/);
  });

  it('a call that never ran (denied by policy, or invalid) still gets an execute_tool span, in error, with legion.tool.decision', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('lead', { delegation: 'none', tools: ['file_write'] }),
          policies: { file_write: { mode: 'auto', rules: [{ mode: 'deny', paths: ['locked/**'] }] } },
        } as never,
      ],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: [
              { id: 'x1', name: 'file_write', input: { path: 'locked/SECRET-ARG.txt', content: 'x' } },
              { id: 'x2', name: 'no_such_tool', input: {} },
            ],
          },
          { text: 'could not' },
        ],
      },
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'Look it up')).toMatchObject({
      status: 'success',
      reply: 'could not',
    });
    const spans = exporter.getFinishedSpans();
    const turn = one(spans, 'invoke_agent lead');
    const denied = one(spans, 'execute_tool file_write');
    expect(parentOf(denied)).toBe(turn.spanContext().spanId);
    expect(denied.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'x1', 'legion.tool.decision': 'denied', 'error.type': 'tool_denied' });
    expect(denied.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool_denied' });
    expect(one(spans, 'execute_tool no_such_tool').attributes).toMatchObject({ 'legion.tool.decision': 'unavailable' });
    expect(everything(spans)).not.toMatch(/SECRET/);
    test.assertScriptsDone();
  });

  it("the compaction summarizer's model call is a chat span of the turn that compacted", async () => {
    const context = { window: 4_000, outputReserve: 1_000, summarizeAtTokens: 600, protectRecentTokens: 0, keepRecentMessages: 1 };
    test = createTestLegion({
      participants: [userParticipant(), { ...agentParticipant('lead', { delegation: 'none' }), context } as never],
      entryAgent: 'lead',
      scripts: {
        lead: [
          // The provider says the context is large: the next turn compacts it before its request.
          { text: `Noted. ${'The plan has many steps. '.repeat(150)}`, usage: { inputTokens: 900, outputTokens: 900 } },
          { expect: (request) => expect(request.system).toContain(SUMMARY_SYSTEM_MARK), text: 'Summary: a long plan.' },
          { text: 'Going on.' },
        ],
      },
    });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'Plan it all.');
    exporter.reset();
    const result = await test.legion.send(session, 'Go on.');
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', reply: 'Going on.' });
    const spans = exporter.getFinishedSpans();
    const turn = one(spans, 'invoke_agent lead');
    const chats = named(spans, 'chat lead');
    expect(chats.map((span) => span.attributes['legion.chat.purpose'])).toEqual(['compaction', undefined]);
    for (const chat of chats) expect(parentOf(chat)).toBe(turn.spanContext().spanId);
    test.assertScriptsDone();
  });

  it('a failed model call sets error status on its chat span and on the turn, naming the kind only', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead', { delegation: 'none' })],
      entryAgent: 'lead',
      scripts: { lead: [{ error: new Error('upstream SECRET-DETAIL') }] },
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'hi')).toMatchObject({ status: 'error' });
    const spans = exporter.getFinishedSpans();
    expect(one(spans, 'chat lead').status).toEqual({ code: SpanStatusCode.ERROR, message: 'model_failed' });
    expect(one(spans, 'invoke_agent lead').status).toEqual({ code: SpanStatusCode.ERROR, message: 'model_failed' });
    expect(one(spans, 'invoke_agent lead').attributes).toMatchObject({ 'error.type': 'model_failed', 'legion.turn.status': 'error' });
    expect(everything(spans)).not.toMatch(/SECRET/);
  });

  it('an approval wait is span events; answered by another Legion on the workspace, the resumed work stays in the same trace', async () => {
    test = threeLevels({ name: 'write_note', input: { path: 'note.txt', text: 'approved later' } });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'Write the note');
    expect(paused).toMatchObject({ status: 'paused', requests: [{ requester: 'qa', approver: 'user', tool: 'write_note' }] });
    const requestId = (paused as { requests: Array<{ id: string }> }).requests[0]!.id;
    const before = exporter.getFinishedSpans();
    const traceId = one(before, 'invoke_agent lead').spanContext().traceId;
    const qa = one(before, 'invoke_agent qa');
    expect(qa.attributes).toMatchObject({ 'legion.turn.status': 'paused', 'legion.turn.pending_approvals': 1 });
    expect(qa.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'legion.approval.requested',
        {
          'legion.approval.id': requestId,
          'gen_ai.tool.name': 'write_note',
          'gen_ai.tool.call.id': 'q1',
          'legion.approval.requester': 'qa',
          'legion.approval.approver': 'user',
        },
      ],
    ]);
    // The trace context is kept with the paused state: the request's delegation frames.
    const request = (await session.approvals.state()).request(requestId)!;
    expect(request.frames.map((frame) => frame.trace?.split('-')[1])).toEqual([traceId, traceId, traceId]);
    await test.legion.close();

    exporter.reset();
    const other = test.reopen();
    others.push(other);
    other.tools.register(writeNoteTool(test.root));
    const outcome = await (
      await other.sessions.get(session.id)
    ).answerApprovals([{ id: requestId, decision: 'approve' }], 'user', { medium: 'cli' });
    expect(outcome).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'lead done' }] });
    expect(readFileSync(join(test.root, 'note.txt'), 'utf8')).toBe('approved later');
    const after = exporter.getFinishedSpans();
    expect(new Set(after.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
    const lead = one(after, 'invoke_agent lead');
    expect(lead.attributes).toMatchObject({ 'legion.turn.resumed': true, 'legion.turn.status': 'success' });
    // The resumed lead continues the first lead turn's span; its resumed communicate call waits on the resumed dev, and so on down.
    expect(parentOf(lead)).toBe(one(before, 'invoke_agent lead').spanContext().spanId);
    const leadCommunicate = named(after, 'execute_tool communicate').find((span) => span.attributes['gen_ai.tool.call.id'] === 'l1')!;
    const devCommunicate = named(after, 'execute_tool communicate').find((span) => span.attributes['gen_ai.tool.call.id'] === 'd1')!;
    const dev = one(after, 'invoke_agent dev');
    const resumedQa = one(after, 'invoke_agent qa');
    expect(parentOf(leadCommunicate)).toBe(lead.spanContext().spanId);
    expect(parentOf(dev)).toBe(leadCommunicate.spanContext().spanId);
    expect(parentOf(devCommunicate)).toBe(dev.spanContext().spanId);
    expect(parentOf(resumedQa)).toBe(devCommunicate.spanContext().spanId);
    expect(parentOf(one(after, 'execute_tool write_note'))).toBe(resumedQa.spanContext().spanId);
    expect(resumedQa.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'legion.approval.decided',
        {
          'legion.approval.id': requestId,
          'legion.approval.decision': 'approved',
          'legion.approval.decided_by': 'user',
          'legion.approval.medium': 'cli',
        },
      ],
    ]);
    test.assertScriptsDone();
  });

  it('an approval a user answers while the turn waits is both events on the waiting turn', async () => {
    test = threeLevels({ name: 'write_note', input: { path: 'note.txt', text: 'at once' } });
    test.legion.tools.register(writeNoteTool(test.root));
    test.legion.attachUser({
      medium: 'terminal',
      approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' as const })),
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'Write the note')).toMatchObject({
      status: 'success',
      reply: 'lead done',
    });
    const qa = one(exporter.getFinishedSpans(), 'invoke_agent qa');
    expect(
      qa.events.map((event) => [
        event.name,
        event.attributes?.['legion.approval.decided_by'] ?? event.attributes?.['legion.approval.approver'],
      ]),
    ).toEqual([
      ['legion.approval.requested', 'user'],
      ['legion.approval.decided', 'user'],
    ]);
    expect(qa.events[1]!.attributes).toMatchObject({ 'legion.approval.decision': 'approved', 'legion.approval.medium': 'terminal' });
  });
});

describe('model-call spans through the real SDKs', () => {
  const exporter = useSdk();
  const { server, createTestLegion: createServedLegion } = useLlmServer();

  it('a chat span carries the provider, the model, the tokens and the cost', async () => {
    const writer = {
      ...agentParticipant('writer', { delegation: 'none', tools: 'none' }),
      model: { provider: 'anthropic', model: 'claude-sonnet-4-6', baseURL: server.anthropicURL },
    } as ParticipantInput;
    const test = createServedLegion({ participants: [userParticipant(), writer], entryAgent: 'writer', env: keyEnv(server.anthropicURL) });
    server.mock.on({ model: 'claude-sonnet-4-6' }, { content: 'Written.', usage: { input_tokens: 250, output_tokens: 40 } });
    expect(await test.legion.send(await test.legion.sessions.create(), 'Write it')).toMatchObject({ status: 'success', reply: 'Written.' });
    const chat = one(exporter.getFinishedSpans(), 'chat claude-sonnet-4-6');
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.usage.input_tokens': 250,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.response.finish_reasons': ['stop'],
      // A model served from a loopback address is free.
      'legion.usage.cost_usd': 0,
    });
    expect(parentOf(chat)).toBe(one(exporter.getFinishedSpans(), 'invoke_agent writer').spanContext().spanId);
  });
});
