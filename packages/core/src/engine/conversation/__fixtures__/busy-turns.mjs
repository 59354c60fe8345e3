// Child process for crash-safety.test.ts: runs user → coordinator turns back to back,
// each a tool loop of <steps> model calls that each `communicate` with the mock
// `echo` and call `tick`, so appends to two conversations happen all the time.
// Prints READY once the workspace is open and `STEP <n>` from every tick, so the
// parent can SIGKILL it at a point of its choosing. It never stops on its own.
// Usage: node busy-turns.mjs <workspace-root> <session-id> <steps>
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';

const [root, sessionId, stepsArgument] = process.argv.slice(2);
const steps = Number(stepsArgument);
if (!root || !sessionId || !(steps > 0)) throw new Error('usage: busy-turns.mjs <workspace-root> <session-id> <steps>');

let ticks = 0;
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'coordinator',
  new ScriptedProvider((request) => {
    // The model calls made so far in this turn: assistant messages after the newest text from the user.
    const lastUserText = request.messages.findLastIndex(
      (message) => message.role === 'user' && message.content.some((block) => block.type === 'text'),
    );
    const done = request.messages.slice(lastUserText + 1).filter((message) => message.role === 'assistant').length;
    if (done >= steps) return { text: `finished after ${done} steps` };
    return {
      text: `step ${done}`,
      toolCalls: [
        { name: 'communicate', input: { to: 'echo', message: `step ${done} of ${process.pid}` } },
        { name: 'tick', input: { n: done } },
      ],
    };
  }, 'coordinator'),
);
legion.tools.register(
  defineTool({
    name: 'tick',
    effect: 'read',
    description: 'Reports progress.',
    inputSchema: z.object({ n: z.number() }),
    async execute(input) {
      ticks++;
      process.stdout.write(`STEP ${ticks}\n`);
      return { status: 'success', data: { n: input.n } };
    },
  }),
);

const session = await legion.sessions.get(sessionId);
process.stdout.write('READY\n');
for (let turn = 0; ; turn++) {
  const result = await legion.send(session, `turn ${turn} of ${process.pid}`, { to: 'coordinator' });
  if (result.status !== 'success') process.stdout.write(`TURN_FAILED ${JSON.stringify(result)}\n`);
}
