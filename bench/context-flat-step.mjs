// Legion's own work per step as one conversation grows to 20,000 messages, in a window so large it
// never compacts (issue 31, "flat per-step cost"): what a step computes about the context (the
// byte bound, the prune check, the token measure, the request) must be kept incrementally, not
// recomputed over the whole history. Each turn is ten steps (nine calls of a tool that does
// nothing, then a reply: 20 messages). The model is in-process (ScriptedProvider) and reports
// usage that follows the request's size, as a real provider's does, counted incrementally so the
// harness's own cost stays flat; fsync is off, and the figure is CPU time (user + system, the
// provider's share taken out), which a loaded machine disturbs less than wall time.
// Figures: median time per step around message 100 and at message 20,000; the ratio (target ≤ 1.5).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, tempDir } from './lib.mjs';
import { noopTool } from './noop-tool.mjs';

const MESSAGES = Number(process.env.BENCH_FLAT_MESSAGES ?? 20_000);
const TOOL_STEPS = 9;
const STEPS = TOOL_STEPS + 1;
const MESSAGES_PER_TURN = 2 + 2 * TOOL_STEPS;
const TURNS = Math.ceil(MESSAGES / MESSAGES_PER_TURN);
/** Turns measured around each point. */
const WINDOW = 15;
const SENTENCE = 'The parser walks the input once and notes positions for its error messages. ';

/**
 * Tokens a provider would report for a request, at about four bytes a token. Kept as the
 * conversation grows (each request is the one before plus what was appended since), so the
 * harness's own work per step stays flat too; the figure subtracts it anyway.
 */
const sent = { messages: 0, bytes: 0 };
function requestTokens(request) {
  if (request.messages.length < sent.messages) Object.assign(sent, { messages: 0, bytes: 0 });
  for (let index = sent.messages; index < request.messages.length; index++)
    sent.bytes += JSON.stringify(request.messages[index].content).length;
  sent.messages = request.messages.length;
  return Math.ceil((request.system.length + JSON.stringify(request.tools).length + sent.bytes) / 4);
}

const root = tempDir('flat-step');
initWorkspace(root, {
  participants: [
    userParticipant('user'),
    // A window no conversation here fills (20,000 messages of ~20 tokens): nothing compacts, so every step sees the whole history.
    { ...agentParticipant('worker', { tools: ['noop'], delegation: 'none' }), context: { window: 10_000_000, outputReserve: 4_096 } },
  ],
  entryAgent: 'worker',
});
const configFile = join(root, '.legion', 'config.json');
writeFileSync(configFile, JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), storage: { fsync: 'never' } }, null, 2));
const legion = Legion.open({ root, env: {}, globalConfigFile: join(root, 'no-global-config.json') });
legion.tools.register(noopTool);
let lastRequestTokens = 0;
let providerMs = 0;
/** The step the current turn is at: the model is called once a step, in order. */
let stepOfTurn = 0;
const model = new ScriptedProvider((request) => {
  const begin = process.cpuUsage();
  lastRequestTokens = requestTokens(request);
  const usage = { inputTokens: lastRequestTokens, outputTokens: 20 };
  const done = stepOfTurn++;
  const spent = process.cpuUsage(begin);
  providerMs += (spent.user + spent.system) / 1000;
  if (done < TOOL_STEPS) return { toolCalls: [{ id: `s${done}`, name: 'noop', input: { step: done } }], usage };
  return { text: `Answer: ${SENTENCE}`, usage };
}, 'bench');
legion.providers.useFor('worker', model);
const session = await legion.sessions.create({ title: 'flat' });
let compactions = 0;
legion.events.on('context:compacted', () => compactions++);

const perStep = [];
try {
  for (let turn = 1; turn <= TURNS; turn++) {
    providerMs = 0;
    stepOfTurn = 0;
    const begin = process.cpuUsage();
    const result = await session.send({ from: 'user', to: 'worker', message: `Turn ${turn}: ${SENTENCE}` });
    const cpu = process.cpuUsage(begin);
    perStep.push(((cpu.user + cpu.system) / 1000 - providerMs) / STEPS);
    if (result.status !== 'success') throw new Error(`turn ${turn} failed: ${JSON.stringify(result)}`);
    model.requests.length = 0;
    if (process.env.BENCH_FLAT_TRACE && turn % 100 === 0)
      console.log(`  message ${turn * MESSAGES_PER_TURN}: ${ms(median(perStep.slice(-WINDOW)))} per step`);
  }
  if (compactions > 0)
    throw new Error(`the conversation compacted ${compactions} times: the window must be large enough that it never does`);
  const messages = (await session.conversation({ initiator: 'user', responder: 'worker' }).history()).length;
  if (messages < MESSAGES) throw new Error(`the conversation holds ${messages} messages, not ${MESSAGES}`);
  // Around message 100: turns 3 to 7 (messages 60 to 140), the first turns being warm-up.
  const early = median(perStep.slice(2, 2 + Math.min(WINDOW, 5)));
  const late = median(perStep.slice(-WINDOW));
  const ratio = late / early;
  console.log(
    `context-flat-step — ${messages} messages in one conversation that never compacts (last request ~${lastRequestTokens} tokens), ${STEPS} steps a turn`,
  );
  console.log(
    `  Legion's CPU time per step (provider excluded): around message 100 ${ms(early)}, at message ${messages} ${ms(late)} → ratio ${ratio.toFixed(2)} (target ≤ 1.5)`,
  );
  printJson('context-flat-step', {
    messages,
    stepEarlyMs: Number(early.toFixed(4)),
    stepLateMs: Number(late.toFixed(4)),
    ratio: Number(ratio.toFixed(2)),
  });
} finally {
  await legion.close();
  removeDir(root);
}
