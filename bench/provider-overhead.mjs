// What Legion adds per agent-loop step over the bare SDK, with a real provider
// SDK talking to a local zero-latency server (aimock) that speaks the wire
// protocol. The same 20-step tool-calling loop runs through Legion (persisted,
// events, validation) and through a hand-written loop on the bare SDK.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { LLMock } from '@copilotkit/aimock';
import { z } from 'zod';
import { initWorkspace, Legion, defineTool } from '@legion-collective/core';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const STEPS = 20;
const TURNS = Number(process.env.BENCH_TURNS ?? 40);
const WARMUP = 5;

const toolResults = (request) => request.messages.filter((message) => message.role === 'tool').length;
const mock = new LLMock({ port: 0 });
mock.addFixture({ match: { predicate: (request) => toolResults(request) >= STEPS }, response: { content: 'done' } });
mock.addFixture({
  match: { predicate: (request) => toolResults(request) < STEPS },
  response: { toolCalls: [{ name: 'noop', arguments: '{"n":1}' }] },
});
await mock.start();

const noopSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

async function bareAnthropic(client) {
  const messages = [{ role: 'user', content: 'go' }];
  for (let step = 0; ; step++) {
    const stream = await client.messages.create({
      model: 'claude-bench',
      max_tokens: 1024,
      system: 'bench',
      messages,
      tools: [{ name: 'noop', description: 'noop', input_schema: noopSchema }],
      stream: true,
    });
    const blocks = [];
    let current;
    for await (const event of stream) {
      if (event.type === 'content_block_start') {
        current =
          event.content_block.type === 'tool_use'
            ? { type: 'tool_use', id: event.content_block.id, name: event.content_block.name, json: '' }
            : { type: 'text', text: '' };
        blocks.push(current);
      } else if (event.type === 'content_block_delta') {
        if (event.delta.type === 'text_delta') current.text += event.delta.text;
        else if (event.delta.type === 'input_json_delta') current.json += event.delta.partial_json;
      }
    }
    const content = blocks.map((block) =>
      block.type === 'tool_use' ? { type: 'tool_use', id: block.id, name: block.name, input: JSON.parse(block.json || '{}') } : block,
    );
    messages.push({ role: 'assistant', content });
    const uses = content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return step + 1;
    messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: '{"ok":true}' })) });
  }
}

async function bareOpenAI(client) {
  const messages = [
    { role: 'system', content: 'bench' },
    { role: 'user', content: 'go' },
  ];
  for (let step = 0; ; step++) {
    const stream = await client.chat.completions.create({
      model: 'gpt-bench',
      messages,
      tools: [{ type: 'function', function: { name: 'noop', description: 'noop', parameters: noopSchema } }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const calls = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        if (choice.delta.content) text += choice.delta.content;
        for (const call of choice.delta.tool_calls ?? []) {
          calls[call.index] ??= { id: call.id, name: '', args: '' };
          if (call.function?.name) calls[call.index].name += call.function.name;
          if (call.function?.arguments) calls[call.index].args += call.function.arguments;
        }
      }
    }
    if (calls.length === 0) return step + 1;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } })),
    });
    for (const call of calls) {
      JSON.parse(call.args);
      messages.push({ role: 'tool', tool_call_id: call.id, content: '{"ok":true}' });
    }
  }
}

async function measure(protocol) {
  const root = tempDir(`provider-${protocol}`);
  const baseURL = protocol === 'anthropic' ? mock.url : `${mock.url}/v1`;
  initWorkspace(root, {
    participants: [
      { id: 'user', type: 'user', name: 'user', medium: 'bench' },
      {
        id: 'agent',
        type: 'agent',
        name: 'agent',
        systemPrompt: 'bench',
        delegation: 'none',
        tools: ['noop'],
        model: { provider: protocol, model: `${protocol}-bench`, baseURL },
      },
    ],
    entryAgent: 'agent',
  });
  const legion = Legion.open({
    root,
    env: { ANTHROPIC_API_KEY: 'bench', OPENAI_API_KEY: 'bench', ANTHROPIC_BASE_URL: mock.url, OPENAI_BASE_URL: `${mock.url}/v1` },
    globalConfigFile: `${root}/none.json`,
  });
  legion.tools.register(
    defineTool({
      name: 'noop',
      description: 'noop',
      effect: 'read',
      inputSchema: z.object({ n: z.number() }),
      execute: async () => ({ status: 'success', data: { ok: true } }),
    }),
  );
  const client =
    protocol === 'anthropic'
      ? new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 })
      : new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
  const bare = protocol === 'anthropic' ? () => bareAnthropic(client) : () => bareOpenAI(client);
  const session = await legion.sessions.create();
  const legionPerStep = [];
  const barePerStep = [];
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    // Alternate the two so that load changes on the machine hit both alike.
    let started = performance.now();
    const result = await session.send({ from: 'user', to: 'agent', message: 'go', conversation: `t${turn}` });
    const legionMs = performance.now() - started;
    if (result.status !== 'success' || result.reply !== 'done') throw new Error(`Legion turn failed: ${JSON.stringify(result)}`);
    started = performance.now();
    const steps = await bare();
    const bareMs = performance.now() - started;
    if (steps !== STEPS + 1) throw new Error(`bare loop made ${steps} calls`);
    if (turn >= WARMUP) {
      legionPerStep.push(legionMs / (STEPS + 1));
      barePerStep.push(bareMs / (STEPS + 1));
    }
  }
  legion.close();
  removeDir(root);
  const added = legionPerStep.map((value, index) => value - barePerStep[index]);
  return { legion: legionPerStep, bare: barePerStep, added };
}

console.log(
  `provider-overhead — ${STEPS}-step tool loop (+1 final answer) through Legion vs the bare SDK, both against aimock on 127.0.0.1 (${TURNS} turns each, interleaved)`,
);
const figures = {};
for (const protocol of ['anthropic', 'openai']) {
  const { legion, bare, added } = await measure(protocol);
  figures[protocol] = {
    legionMedianMs: round(median(legion)),
    bareMedianMs: round(median(bare)),
    addedMedianMs: round(median(added)),
    addedP95Ms: round(p95(added)),
  };
  console.log(
    `  ${protocol.padEnd(9)} per step: bare SDK ${ms(median(bare))}   Legion ${ms(median(legion))}   Legion adds median ${ms(median(added))}  p95 ${ms(p95(added))}`,
  );
}
console.log(
  '  (per step = one model call over HTTP+SSE plus its tool call; Legion also validates, persists every message, emits events and records usage)',
);
console.log(
  `  target: < 1 ms added per step → ${Math.max(figures.anthropic.addedMedianMs, figures.openai.addedMedianMs) < 1 ? 'OK' : 'OVER TARGET'}`,
);
printJson('provider-overhead', figures);
await mock.stop();
