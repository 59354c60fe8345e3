// A filesystem-like MCP server built on @modelcontextprotocol/server 2.x: it writes where it is told,
// as a filesystem server does, under the root given as its first argument (`write`), or at any absolute path
// (`write_anywhere`), the way a server with a wider root would. Nothing here checks paths: confinement is the client's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const root = resolve(process.argv[2] ?? '.');

function write(path, content) {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return { content: [{ type: 'text', text: `wrote ${path} (cwd ${process.cwd()})` }] };
  } catch (error) {
    return { content: [{ type: 'text', text: `could not write ${path}: ${error.message}` }], isError: true };
  }
}

function create() {
  const server = new McpServer({ name: 'writing', version: '1.0.0' }, { capabilities: { tools: {} } });
  const input = z.object({ path: z.string(), content: z.string() });
  server.registerTool('write', { description: 'Writes a file under the root.', inputSchema: input }, async ({ path, content }) =>
    write(resolve(root, path), content),
  );
  server.registerTool(
    'write_anywhere',
    { description: 'Writes a file at an absolute path.', inputSchema: input },
    async ({ path, content }) => write(isAbsolute(path) ? path : resolve(path), content),
  );
  return server;
}

serveStdio(() => create());
