// An MCP server of one protocol revision, built on @modelcontextprotocol/server 2.x: the servers Legion's
// client meets in the wild. `node revision-server.mjs REVISION [--http]`:
// - 2025-06-18, 2025-11-25: a server of that revision only (initialize; no server/discover), over stdio;
// - 2026-07-28: a server of that revision only (server/discover and the per-request envelope; initialize is
//   refused), over stdio, or with --http over Streamable HTTP at 127.0.0.1 (it prints its URL on stdout).
// Tools: `revision` answers the revision the request was served in; `confirm` asks the client's user
// (elicitation/create on the 2025 revisions, an input_required round on 2026-07-28) and says what they chose.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createMcpHandler, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const revision = process.argv[2] ?? '2026-07-28';
// Each start, one line: how many processes a client started.
if (process.env.REVISION_SERVER_LOG) appendFileSync(process.env.REVISION_SERVER_LOG, `${process.pid}\n`);
const modern = revision === '2026-07-28';
const QUESTION = { message: 'Go ahead?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] } };

function create() {
  const server = new McpServer(
    { name: `revision-${revision}`, version: '1.0.0' },
    { capabilities: { tools: {} }, ...(modern ? {} : { supportedProtocolVersions: [revision] }) },
  );
  server.registerTool('revision', { description: 'The protocol revision of this request.', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: server.server.getNegotiatedProtocolVersion() ?? 'unknown' }],
  }));
  server.registerTool('confirm', { description: "Asks the user's go-ahead.", inputSchema: z.object({}) }, async (_input, ctx) => {
    if (modern) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'go');
      if (answer.kind === 'missing') return inputRequired({ inputRequests: { go: inputRequired.elicit(QUESTION) } });
      return { content: [{ type: 'text', text: answer.kind === 'elicit' && answer.content?.go === true ? 'go' : 'stop' }] };
    }
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...QUESTION });
    return { content: [{ type: 'text', text: answer.action === 'accept' && answer.content?.go === true ? 'go' : 'stop' }] };
  });
  return server;
}

if (!modern) await create().connect(new StdioServerTransport());
else if (!process.argv.includes('--http')) serveStdio(() => create(), { legacy: 'reject' });
else {
  const handler = createMcpHandler(() => create(), { legacy: 'reject' });
  // A bare node:http bridge to the fetch-shaped handler (the SDK's own adapter lives in another package).
  const listening = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const controller = new AbortController();
    response.on('close', () => controller.abort());
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1${request.url}`, {
        method: request.method,
        headers: Object.entries(request.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
        ...(body.length > 0 ? { body } : {}),
        signal: controller.signal,
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  listening.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${listening.address().port}/mcp\n`));
}
