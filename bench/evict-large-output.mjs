// What a large tool result costs when it is evicted to an artifact (issue 12, relief step 1).
//
// One agent (a scripted model, so the figure is the framework's) calls a tool
// whose output is N bytes of log lines — or one line of one character, the
// tokenizer's worst case (BPE is quadratic in a whitespace-free run) — then
// answers. Timed: the whole turn (tool, redaction, the artifact write, the
// preview, the appends). Printed: the turn's time, the artifact's size, and
// the size of what the model got instead (the preview). The first turn of the
// first measure also loads the tokenizer (~90 ms).
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, tempDir } from './lib.mjs';

const ROUNDS = 5;
const MB = 1024 * 1024;

const shapes = {
  'log lines': (bytes) => {
    const lines = [];
    let size = 0;
    for (let index = 1; size < bytes; index++) {
      const line = `2025-01-01T00:00:${String(index % 60).padStart(2, '0')}Z GET /api/items/${index} 200 ${index % 97} ms`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n').slice(0, bytes);
  },
  'one run of one character': (bytes) => 'a'.repeat(bytes),
};

async function measure(shape, bytes) {
  const root = tempDir('evict');
  initWorkspace(root, {
    participants: [userParticipant('user'), agentParticipant('worker', { tools: ['flood', 'artifact_read'], delegation: 'none' })],
    entryAgent: 'worker',
  });
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
  const output = shapes[shape](bytes);
  legion.tools.register(
    defineTool({
      name: 'flood',
      effect: 'read',
      description: 'prints a lot',
      inputSchema: z.object({ n: z.number() }),
      execute: async () => ({ status: 'success', data: output }),
    }),
  );
  let preview = 0;
  legion.providers.useFor(
    'worker',
    new ScriptedProvider((request) => {
      const last = request.messages.at(-1).content[0];
      if (last.type !== 'tool_result')
        return { toolCalls: [{ id: `f${request.messages.length}`, name: 'flood', input: { n: request.messages.length } }] };
      preview = Buffer.byteLength(last.content);
      return { text: 'done' };
    }, 'bench'),
  );
  const session = await legion.sessions.create();
  const times = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const result = await session.send({ from: 'user', to: 'worker', message: 'go', conversation: `t${round}` });
      times.push(performance.now() - started);
      if (result.status !== 'success') throw new Error(JSON.stringify(result));
    }
    const artifacts = await session.artifacts.list();
    return { median: median(times), first: times[0], artifactBytes: artifacts[0]?.bytes ?? 0, previewBytes: preview };
  } finally {
    await legion.close();
    removeDir(root);
  }
}

const figures = {};
for (const shape of Object.keys(shapes)) {
  for (const megabytes of [2, 10]) {
    const result = await measure(shape, megabytes * MB);
    const key = `${shape}, ${megabytes} MB`;
    figures[key] = result;
    console.log(
      `${key.padEnd(34)} turn ${ms(result.median)} (median of ${ROUNDS}; first ${ms(result.first)})  artifact ${result.artifactBytes} B  preview to the model ${result.previewBytes} B`,
    );
  }
}
printJson('evict-large-output', figures);
