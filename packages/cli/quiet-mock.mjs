// Manual check only (not committed): aimock with a delegation and a tool call, slowed down.
import { LLMock } from '@copilotkit/aimock';
const mock = new LLMock({ port: Number(process.argv[2] ?? 58200), host: '127.0.0.1' });
const userMessage = 'Add a health check';
const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
const write = { path: 'src/health.ts', content: 'export const health = () => "ok";\n' };
mock.on({ model: 'claude-test', userMessage, hasToolResult: false }, { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] }, { latency: 800 });
mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: 'The developer added src/health.ts for you.' }, { latency: 800 });
mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false }, { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify(write) }] }, { latency: 800 });
mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: true }, { content: 'Created src/health.ts.' }, { latency: 800 });
await mock.start();
console.log(mock.url);
