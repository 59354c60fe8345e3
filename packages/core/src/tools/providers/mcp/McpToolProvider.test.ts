import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeZodError } from '../../../kernel/zod-issues.js';
import type { LegionEvents } from '../../../kernel/events/event-types.js';
import { EventBus } from '../../../kernel/events/EventBus.js';
import { ToolRegistry } from '../../ToolRegistry.js';
import { toolContext } from '../__fixtures__/tool-context.js';
import { isAlive, startEverythingOverHttp, stdioServer, type RunningHttpServer } from './__fixtures__/mcp-servers.js';
import { createMcpToolProvider, type McpToolProvider } from './McpToolProvider.js';

let root: string;
let events: EventBus;
let registry: ToolRegistry;
const providers: McpToolProvider[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-mcp-'));
  events = new EventBus();
  registry = new ToolRegistry({ events });
});

afterEach(async () => {
  await registry.dispose();
  await Promise.all(providers.splice(0).map((provider) => provider.dispose()));
  rmSync(root, { recursive: true, force: true });
});

function provider(servers: Parameters<typeof createMcpToolProvider>[0]['servers'], env: NodeJS.ProcessEnv = {}): McpToolProvider {
  const created = createMcpToolProvider({ servers, workspaceRoot: root, events, env });
  providers.push(created);
  return created;
}

function nextError(matches: (event: LegionEvents['error:raised']) => boolean): Promise<LegionEvents['error:raised']> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error('no matching error:raised event within 15 s'));
    }, 15_000);
    const stop = events.on('error:raised', (event) => {
      if (!matches(event)) return;
      clearTimeout(timer);
      stop();
      resolve(event);
    });
  });
}

const memoryServer = () => stdioServer('@modelcontextprotocol/server-memory', [], { MEMORY_FILE_PATH: join(root, 'memory.jsonl') });

describe('McpToolProvider over stdio', () => {
  it("starts nothing until asked, then exposes the server's tools as mcp__<server>__<tool> with its JSON Schema", async () => {
    const mcp = provider({ memory: memoryServer() });
    registry.registerToolProvider(mcp, { deferred: true });
    expect(mcp.serverPid('memory')).toBeUndefined();
    // The first need for the tools starts the server.
    await registry.ready();
    expect(mcp.serverPid('memory')).toEqual(expect.any(Number));
    const names = registry.list().map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__memory__create_entities', 'mcp__memory__read_graph', 'mcp__memory__search_nodes']));
    expect(names.every((name) => registry.providerOf(name) === 'mcp')).toBe(true);
    const create = registry.get('mcp__memory__create_entities')!;
    expect(create.effect).toBe('shell');
    expect(create.parameters).toMatchObject({ type: 'object', properties: { entities: { type: 'array' } }, required: ['entities'] });
    expect(create.parameters).not.toHaveProperty('$schema');

    const bad = { entities: [{ name: 'Ada', entityType: 'person', observations: 'wrote the first program' }] };
    const parsed = create.inputSchema.safeParse(bad);
    expect(describeZodError(parsed.error!, bad)).toMatchObject({
      field: 'entities[0].observations',
      problem: 'must be an array, got the string "wrote the first program"',
    });

    const created = await create.execute(
      { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      toolContext(),
    );
    expect(created).toMatchObject({ status: 'success' });
    const graph = await registry.get('mcp__memory__read_graph')!.execute({}, toolContext());
    expect(graph).toMatchObject({ status: 'success', data: expect.stringContaining('wrote the first program') });
  });

  it('starts a crashed server again on its next use', async () => {
    const mcp = provider({ memory: memoryServer() });
    registry.registerToolProvider(mcp);
    await registry.ready();
    const create = registry.get('mcp__memory__create_entities')!;
    expect(
      await create.execute({ entities: [{ name: 'Grace', entityType: 'person', observations: ['found a moth'] }] }, toolContext()),
    ).toMatchObject({ status: 'success' });
    const firstPid = mcp.serverPid('memory')!;

    const exited = nextError((event) => event.code === 'mcp_server_exited');
    process.kill(firstPid, 'SIGKILL');
    expect((await exited).message).toContain('MCP server "memory" stopped unexpectedly');
    expect(mcp.serverPid('memory')).toBeUndefined();

    const graph = await registry.get('mcp__memory__read_graph')!.execute({}, toolContext());
    // The restarted server read the graph its predecessor saved.
    expect(graph).toMatchObject({ status: 'success', data: expect.stringContaining('found a moth') });
    expect(mcp.serverPid('memory')).not.toBe(firstPid);
  });

  it("runs filesystem tools inside the allowed directory and returns the server's refusal outside it as an error result", async () => {
    writeFileSync(join(root, 'notes.txt'), 'remember the milk\n');
    const mcp = provider({ files: stdioServer('@modelcontextprotocol/server-filesystem', [root]) });
    registry.registerToolProvider(mcp);
    await registry.ready();
    const read = registry.get('mcp__files__read_text_file')!;
    expect(await read.execute({ path: join(root, 'notes.txt') }, toolContext())).toEqual({
      status: 'success',
      data: 'remember the milk\n',
    });
    const outside = await read.execute({ path: '/etc/hostname' }, toolContext());
    expect(outside).toMatchObject({ status: 'error', error: expect.stringContaining('outside allowed directories') });
  });

  it('reports a server that cannot start, with its stderr, while the other servers work', async () => {
    const mcp = provider({
      broken: { command: process.execPath, args: ['-e', 'console.error("missing API key"); process.exit(2)'] },
      everything: stdioServer('@modelcontextprotocol/server-everything'),
    });
    const failure = nextError((event) => event.scope === 'mcp server broken');
    registry.registerToolProvider(mcp);
    await registry.ready();
    expect((await failure).message).toMatch(/^MCP server "broken" could not be started: .*missing API key/);
    expect(mcp.problems).toEqual([{ server: 'broken', message: expect.stringContaining('missing API key') }]);
    expect(await registry.get('mcp__everything__get-sum')!.execute({ a: 2, b: 3 }, toolContext())).toEqual({
      status: 'success',
      data: 'The sum of 2 and 3 is 5.',
    });
  });

  it('describes non-text content instead of pasting base64, and passes structured content', async () => {
    const mcp = provider({ everything: stdioServer('@modelcontextprotocol/server-everything') });
    expect(await mcp.execute('mcp__everything__get-tiny-image', {}, toolContext())).toEqual({
      status: 'success',
      data: expect.stringMatching(/^[^\n]*\n\[image: image\/png, \d+ bytes\]\n/),
    });
    const weather = await mcp.execute('mcp__everything__get-structured-content', { location: 'New York' }, toolContext());
    expect(JSON.parse((weather as { data: string }).data)).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
  });

  it('gives a server only the environment it is configured with, expanding ${env:NAME}', async () => {
    const mcp = provider(
      { everything: { ...stdioServer('@modelcontextprotocol/server-everything'), env: { GREETING: 'hello ${env:LEGION_TEST_NAME}' } } },
      { LEGION_TEST_NAME: 'legion', LEGION_TEST_SECRET: 'do-not-leak' },
    );
    const result = await mcp.execute('mcp__everything__get-env', {}, toolContext());
    const env = JSON.parse((result as { data: string }).data) as Record<string, string>;
    expect(env.GREETING).toBe('hello legion');
    expect(env).not.toHaveProperty('LEGION_TEST_SECRET');

    const missing = provider({
      other: { ...stdioServer('@modelcontextprotocol/server-everything'), env: { TOKEN: '${env:LEGION_UNSET_TOKEN}' } },
    });
    expect(await missing.execute('mcp__other__echo', { message: 'x' }, toolContext())).toEqual({
      status: 'error',
      error: 'No MCP tool "mcp__other__echo" is known (its server may have stopped offering it).',
    });
    expect(missing.problems[0]!.message).toBe(
      'MCP server "other" could not be started: mcpServers.other.env.TOKEN refers to ${env:LEGION_UNSET_TOKEN}, but the environment variable LEGION_UNSET_TOKEN is not set.',
    );
  });

  it('stops its servers on dispose', async () => {
    const mcp = provider({ memory: memoryServer() });
    await mcp.getTools();
    const pid = mcp.serverPid('memory')!;
    expect(isAlive(pid)).toBe(true);
    await mcp.dispose();
    expect(isAlive(pid)).toBe(false);
    expect(await mcp.execute('mcp__memory__read_graph', {}, toolContext())).toMatchObject({
      status: 'error',
      error: expect.stringContaining('has been shut down'),
    });
  });
});

describe('McpToolProvider over Streamable HTTP', () => {
  let server: RunningHttpServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('lists and calls the tools of a server at a URL, as network tools', async () => {
    server = await startEverythingOverHttp();
    const mcp = provider({ remote: { url: server.url } });
    registry.registerToolProvider(mcp);
    await registry.ready();
    const echo = registry.get('mcp__remote__echo')!;
    expect(echo.effect).toBe('network');
    expect(await echo.execute({ message: 'over http' }, toolContext())).toEqual({ status: 'success', data: 'Echo: over http' });
    expect(await registry.get('mcp__remote__get-sum')!.execute({ a: 40, b: 2 }, toolContext())).toEqual({
      status: 'success',
      data: 'The sum of 40 and 2 is 42.',
    });
  });

  it('opens a new session when the server behind the URL restarted and forgot the old one', async () => {
    server = await startEverythingOverHttp();
    const port = Number(new URL(server.url).port);
    const mcp = provider({ remote: { url: server.url } });
    expect(await mcp.execute('mcp__remote__echo', { message: 'first' }, toolContext())).toEqual({ status: 'success', data: 'Echo: first' });
    await server.stop();
    server = await startEverythingOverHttp({ port });
    expect(await mcp.execute('mcp__remote__echo', { message: 'second' }, toolContext())).toEqual({
      status: 'success',
      data: 'Echo: second',
    });
  });

  it('reports an unreachable URL as an error result, not a throw', async () => {
    server = await startEverythingOverHttp();
    const url = server.url;
    await server.stop();
    const mcp = provider({ gone: { url } });
    expect(await mcp.getTools()).toEqual([]);
    expect(mcp.problems).toEqual([{ server: 'gone', message: expect.stringMatching(/^MCP server "gone" could not be started: /) }]);
  });
});
