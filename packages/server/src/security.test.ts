import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { createTestLegion, mockParticipant, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { ApiClient } from './server-test-support.js';
import { startServer, type RunningServer } from './start-server.js';

const ENV_KEY = 'sk-ant-env-secret-0123456789abcdef';
const GLOBAL_KEY = 'sk-global-config-secret-fedcba9876543210';
const MCP_TOKEN = 'ghp_mcp_env_secret_value_42';
/** A remote agent's header, keyed by an origin: a key with dots in it. */
const REMOTE_TOKEN = 'Bearer remote-agent-secret-31415';

describe('legion serve refuses what is not its own page with its token', () => {
  let test: TestLegion;
  let server: RunningServer;
  let api: ApiClient;
  let staticDir: string;
  let legion: Legion;

  beforeEach(async () => {
    test = createTestLegion({
      participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])],
      env: { ANTHROPIC_API_KEY: ENV_KEY },
    });
    await test.legion.close();
    // A global config with a key, and an MCP server whose environment holds a token: none of it may reach a browser.
    const globalConfig = join(test.root, 'global-config.json');
    writeFileSync(
      globalConfig,
      JSON.stringify({
        providers: { openai: { apiKey: GLOBAL_KEY } },
        remoteAgents: { 'https://agents.example.com': { headers: { 'X-Agent-Auth': REMOTE_TOKEN } } },
      }),
    );
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({ mcpServers: { gh: { command: 'true', env: { GITHUB_PAT: MCP_TOKEN } } } }),
    );
    legion = Legion.open({ root: test.root, globalConfigFile: globalConfig, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    staticDir = mkdtempSync(join(tmpdir(), 'legion-web-'));
    mkdirSync(join(staticDir, 'assets'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Legion app</title><div id="app"></div>');
    writeFileSync(join(staticDir, 'assets', 'index-abc123.js'), 'console.log("app")');
    writeFileSync(join(staticDir, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(join(staticDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    server = await startServer({ legion, staticDir, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    api = new ApiClient(server.port, server.token);
  });
  afterEach(async () => {
    await server.close();
    await legion.close();
    await test.cleanup();
    rmSync(staticDir, { recursive: true, force: true });
    expect(api.mismatches).toEqual([]);
  });

  it('refuses API and event requests without the token, or with a wrong one', async () => {
    for (const path of ['/api/workspace', '/api/events', '/api/openapi.json', '/api/sessions']) {
      const bare = await api.get(path, { token: null });
      expect(bare.status, path).toBe(401);
      expect(bare.json).toMatchObject({
        error: { code: 'unauthorized', message: expect.stringContaining('Open the URL legion serve printed') },
      });
      expect((await api.get(path, { token: 'wrong' })).status).toBe(401);
    }
    expect((await api.post('/api/sessions', {}, { token: null })).status).toBe(401);
    expect((await api.get('/api/workspace')).status).toBe(200);
  });

  it('sends headers that keep other sites and injected markup out: a script policy, no framing, no referrer, no sniffing', async () => {
    const page = await api.get('/');
    const api401 = await api.get('/api/workspace', { token: null });
    for (const response of [page, await api.get('/api/workspace'), api401, await api.get('/assets/index-abc123.js')]) {
      const policy = String(response.headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("object-src 'none'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('lets only the origins given in frameAncestors frame the app (an editor webview), still with the other headers', async () => {
    const framed = await startServer({ legion, staticDir, env: {}, frameAncestors: ['vscode-webview:', 'http://127.0.0.1:*'] });
    try {
      const client = new ApiClient(framed.port, framed.token);
      const page = await client.get('/');
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain('frame-ancestors vscode-webview: http://127.0.0.1:*');
      expect(policy).not.toContain("frame-ancestors 'none'");
      expect(policy).toContain("script-src 'self'");
      // X-Frame-Options has no list of origins: DENY would override the CSP in older browsers.
      expect(page.headers['x-frame-options']).toBeUndefined();
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(client.mismatches).toEqual([]);
    } finally {
      await framed.close();
    }
  });

  it('refuses a foreign Origin, and takes its own', async () => {
    const foreign = await api.get('/api/workspace', { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({ error: { code: 'forbidden_origin' } });
    expect((await api.post('/api/sessions', {}, { headers: { origin: `http://localhost:${server.port + 1}` } })).status).toBe(403);
    expect((await api.get('/api/workspace', { headers: { origin: 'null' } })).status).toBe(403);
    expect((await api.get('/api/workspace', { headers: { origin: `http://127.0.0.1:${server.port}` } })).status).toBe(200);
    expect((await api.get('/api/workspace', { headers: { origin: `http://localhost:${server.port}` } })).status).toBe(200);
  });

  it('refuses a Host it does not answer to (DNS rebinding), even with the token', async () => {
    const rebound = await api.get('/api/workspace', { headers: { host: `evil.example:${server.port}` } });
    expect(rebound.status).toBe(421);
    expect(rebound.json).toMatchObject({ error: { code: 'wrong_host' } });
    expect((await api.get('/', { headers: { host: `evil.example:${server.port}` } })).status).toBe(421);
    expect((await api.get('/api/workspace', { headers: { host: `127.0.0.1:${server.port + 1}` } })).status).toBe(421);
    expect((await api.get('/api/workspace', { headers: { host: `localhost:${server.port}` } })).status).toBe(200);
    expect((await api.get('/api/workspace', { headers: { host: `[::1]:${server.port}` } })).status).toBe(200);
  });

  it('refuses a state change that is not JSON (a cross-site form post)', async () => {
    const form = await api.request('POST', '/api/sessions', {
      rawBody: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.json).toMatchObject({ error: { code: 'unsupported_media_type', message: expect.stringContaining('application/json') } });
    expect((await api.request('POST', '/api/sessions', { rawBody: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await api.request('POST', '/api/sessions', { rawBody: '{}' })).status).toBe(415);
    expect(
      (await api.request('POST', '/api/sessions', { rawBody: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } }))
        .status,
    ).toBe(201);
  });

  it('trades ?token= for an HttpOnly SameSite=Strict cookie and a redirect, then serves the app with it', async () => {
    const noToken = await api.get('/', { token: null });
    expect(noToken.status).toBe(401);
    expect(noToken.text).toContain('open the URL with its token');
    expect((await api.get('/?token=wrong', { token: null })).status).toBe(401);
    const exchange = await api.get(`/?token=${server.token}`, { token: null });
    expect(exchange.status).toBe(302);
    expect(exchange.headers.location).toBe('/');
    const cookie = String(exchange.headers['set-cookie']);
    expect(cookie).toMatch(/^legion_token=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    const cookieHeader = cookie.split(';')[0]!;
    const index = await api.get('/', { token: null, headers: { cookie: cookieHeader } });
    expect(index.status).toBe(200);
    expect(index.text).toContain('Legion app');
    expect(index.headers['cache-control']).toBe('no-cache');
    // The cookie opens the API too, as the app uses it.
    expect((await api.get('/api/workspace', { token: null, headers: { cookie: cookieHeader } })).status).toBe(200);
    // An app route is the index (the app routes in the browser); it needs the cookie like the index.
    expect((await api.get('/sessions/abc', { token: null, headers: { cookie: cookieHeader } })).text).toContain('Legion app');
    expect((await api.get('/sessions/abc', { token: null })).status).toBe(401);
  });

  it('serves hashed assets without a token, with their content types, cached for good', async () => {
    const script = await api.get('/assets/index-abc123.js', { token: null });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await api.get('/assets/index-abc123.css', { token: null })).headers['content-type']).toMatch(/^text\/css/);
    const icon = await api.get('/favicon.svg', { token: null });
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).toBe('no-cache');
    expect((await api.get('/assets/missing-000.js', { token: null })).status).toBe(404);
    expect((await api.get('/../package.json', { token: null })).status).not.toBe(200);
  });

  it('never sends a secret: not in the config view, not in any response', async () => {
    const config = await api.get('/api/config');
    expect(config.json).toMatchObject({
      redacted: expect.arrayContaining([
        'providers.openai.apiKey',
        'mcpServers.gh.env.GITHUB_PAT',
        'remoteAgents.https://agents.example.com.headers.X-Agent-Auth',
      ]),
    });
    const bodies: string[] = [config.text];
    for (const path of ['/api/workspace', '/api/participants', '/api/sessions', '/api/openapi.json', '/api/questions'])
      bodies.push((await api.get(path)).text);
    bodies.push((await api.get('/api/tools?agent=nobody')).text);
    for (const body of bodies) {
      expect(body).not.toContain(ENV_KEY);
      expect(body).not.toContain(GLOBAL_KEY);
      expect(body).not.toContain(MCP_TOKEN);
      expect(body).not.toContain(REMOTE_TOKEN);
    }
  });
});

describe('legion serve without a built app', () => {
  it('still runs the API, and / says the app was not built', async () => {
    const test = createTestLegion({ participants: [userParticipant()] });
    const server = await startServer({ legion: test.legion, token: 'fixed-token-for-scripts' });
    try {
      expect(server.token).toBe('fixed-token-for-scripts');
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
      const api = new ApiClient(server.port, server.token);
      const exchange = await api.get(`/?token=${server.token}`, { token: null });
      const page = await api.get('/', { token: null, headers: { cookie: String(exchange.headers['set-cookie']).split(';')[0]! } });
      expect(page.status).toBe(200);
      expect(page.text).toContain('the browser app was not built');
      expect((await api.get('/api/workspace')).status).toBe(200);
    } finally {
      await server.close();
      await test.cleanup();
    }
  });
});
