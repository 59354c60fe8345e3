// Runs one file_grep call in its own process (built dist), so a test can bound it with a timeout
// even if the search blocked the event loop. Usage: node grep-once.mjs <workspace> <pattern>
// The built-in tool factory is internal to core (not in its public API), so this fixture takes it from the build.
import { createBuiltinTools } from '../../../../../dist/tools/builtin/index.js';
import { EventBus } from '@legion-collective/core';

const [root, pattern] = process.argv.slice(2);
const builtin = createBuiltinTools({ families: ['files'] });
const grep = builtin.tools.find((tool) => tool.name === 'file_grep');
const input = grep.inputSchema.parse({ pattern });
const result = await grep.execute(input, {
  callerId: 'worker',
  chain: [],
  frames: [],
  toolUseId: 't1',
  conversation: { sessionId: 's', conversationId: 'user__worker', initiator: 'user', responder: 'worker' },
  session: { id: 's' },
  signal: new AbortController().signal,
  events: new EventBus(),
  workspaceRoot: root,
  readable: () => true,
});
process.stdout.write(JSON.stringify(result));
await builtin.dispose();
