import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Legion } from '../Legion.js';
import { defineTool } from './tool.js';
import { agentParticipant, ScriptedProvider, userParticipant } from '../testing/index.js';
import { configSecretValues, createRedactor, redactSecrets, secretValues } from './redact.js';

describe('redactSecrets', () => {
  const env = {
    OPENAI_API_KEY: 'sk-live-1234567890abcdef',
    GITHUB_TOKEN: 'ghp_abcdefgh12345678',
    DB_PASSWORD: 'hunter2hunter2',
    AWS_CREDENTIALS_FILE_SECRET: 'sk-live-1234567890abcdef-extended',
    SHORT_TOKEN: 'abc123',
    HOME: '/home/someone-long-path',
    PATH: '/usr/bin:/bin',
  };

  it('replaces the values of secret-looking variables with their names', () => {
    const text = `key=${env.OPENAI_API_KEY} token=${env.GITHUB_TOKEN}\npassword: ${env.DB_PASSWORD}`;
    expect(redactSecrets(text, env)).toBe('key=[redacted:OPENAI_API_KEY] token=[redacted:GITHUB_TOKEN]\npassword: [redacted:DB_PASSWORD]');
  });

  it('replaces a longer secret that contains a shorter one whole', () => {
    expect(redactSecrets(`x ${env.AWS_CREDENTIALS_FILE_SECRET} y`, env)).toBe('x [redacted:AWS_CREDENTIALS_FILE_SECRET] y');
  });

  it('leaves short values and variables with ordinary names alone', () => {
    expect(redactSecrets('abc123 in /home/someone-long-path', env)).toBe('abc123 in /home/someone-long-path');
    expect(secretValues(env).map((secret) => secret.name)).toEqual([
      'AWS_CREDENTIALS_FILE_SECRET',
      'OPENAI_API_KEY',
      'GITHUB_TOKEN',
      'DB_PASSWORD',
    ]);
  });
});

describe('secrets in tool results', () => {
  it('never reach the log, the events or the model, whatever tool printed them', async () => {
    const { createTestLegion, agentParticipant, userParticipant } = await import('../testing/index.js');
    const { defineTool } = await import('./tool.js');
    const { z } = await import('zod');
    const { readFileSync, readdirSync } = await import('node:fs');
    const secret = 'sk-live-0123456789abcdef';
    const test = createTestLegion({
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      scripts: {
        solo: [
          { toolCalls: [{ name: 'leaky', input: {} }] },
          { expect: (request) => expect(JSON.stringify(request.messages)).not.toContain(secret), text: 'ok' },
        ],
      },
      env: { MY_SERVICE_API_KEY: secret },
    });
    test.legion.tools.register(
      defineTool({
        name: 'leaky',
        description: 'prints its environment',
        effect: 'read',
        inputSchema: z.object({}),
        execute: async () => ({ status: 'success', data: `key=${secret}` }),
      }),
    );
    const seen: string[] = [];
    test.legion.events.onAny((event) => seen.push(JSON.stringify(event)));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'go', { to: 'solo' })).toMatchObject({ reply: 'ok' });
    const dir = `${test.root}/.legion/sessions/${session.id}/conversations`;
    const logs = readdirSync(dir)
      .map((file) => readFileSync(`${dir}/${file}`, 'utf8'))
      .join('\n');
    expect(logs).toContain('key=[redacted:MY_SERVICE_API_KEY]');
    expect(logs).not.toContain(secret);
    expect(seen.join('\n')).not.toContain(secret);
    await test.cleanup();
  });
});

// Made-up keys in the real formats (not live credentials).
const ANTHROPIC = `sk-ant-api03-${'Ab3_x-9Q'.repeat(10)}`;
const OPENAI = `sk-proj-${'Zq8_Lm-2'.repeat(8)}`;
const OPENAI_LEGACY = `sk-${'a1B2c3D4e5'.repeat(5)}`;
const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
const GITHUB_PAT = `github_pat_11ABCDEFG0${'x_Y9z'.repeat(12)}`;
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const SLACK = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const PRIVATE_KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACBm9nUwAx1Qj0=',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');

describe('keys of a well-known shape, configured or not', () => {
  const redact = createRedactor();

  it.each([
    ['an Anthropic key', ANTHROPIC, '[redacted:anthropic-api-key]'],
    ['an OpenAI project key', OPENAI, '[redacted:openai-api-key]'],
    ['a legacy OpenAI key', OPENAI_LEGACY, '[redacted:openai-api-key]'],
    ['a GitHub token', GITHUB, '[redacted:github-token]'],
    ['a fine-grained GitHub token', GITHUB_PAT, '[redacted:github-token]'],
    ['an AWS access key id', AWS, '[redacted:aws-access-key-id]'],
    ['a Slack token', SLACK, '[redacted:slack-token]'],
    ['a private-key block', PRIVATE_KEY, '[redacted:private-key]'],
  ])('hides %s', (_kind, key, label) => {
    expect(redact(`before ${key} after`)).toBe(`before ${label} after`);
    expect(redact(`KEY="${key}"`)).toBe(`KEY="${label}"`);
  });

  it('leaves look-alikes in ordinary text alone', () => {
    const text = [
      'task-runner-configuration-values-here',
      'disk-usage-report-for-all-volumes',
      'ghp_short',
      'AKIAIOSFODNN7EXAMPLEX',
      'The key is in ~/.ssh/id_ed25519 (-----BEGIN is how it starts)',
      'http://localhost:8080/path and https://example.com/a@b',
    ].join('\n');
    expect(redact(text)).toBe(text);
  });

  it('hides a private key whose end was cut off, and the key lines above an end whose beginning was', () => {
    const [begin, first, last, end] = PRIVATE_KEY.split('\n');
    expect(redact(`cat id\n${begin}\n${first}\n… [9 bytes cut] …\n`)).toBe('cat id\n[redacted:private-key]');
    expect(redact(`… [9 bytes cut] …\n${first}\n${last}\n${end}\ndone`)).toBe('… [9 bytes cut] …\n[redacted:private-key]\ndone');
  });
});

describe('passwords in URLs', () => {
  const redact = createRedactor();

  it.each([
    ['postgres://app:s3cr3t@db.internal:5432/app', 'postgres://app:[redacted]@db.internal:5432/app'],
    ['redis://:hunter2@cache:6379', 'redis://:[redacted]@cache:6379'],
    ['https://user:p@ss:w0rd@example.com/x?y=1', 'https://user:[redacted]@example.com/x?y=1'],
    [
      '"url": "mongodb+srv://me:pw-1@cluster0.example.net", "other": "a@b"',
      '"url": "mongodb+srv://me:[redacted]@cluster0.example.net", "other": "a@b"',
    ],
  ])('hides the password of %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('takes linear time on hostile output (one try per scheme-like word, not per letter)', () => {
    // CPU time, not wall time: other processes on a loaded machine stretch the wall clock, not this work. Linear
    // takes tens of milliseconds here; one try per letter would take minutes.
    const started = process.cpuUsage();
    redact(`${'a.'.repeat(100_000)}://x ${'sk-'.repeat(100_000)} ${'x://u:'.repeat(50_000)}`);
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
  });

  it('leaves URLs without a password alone', () => {
    const text = 'https://example.com:8443/a http://user@host/x git@github.com:org/repo.git ssh://git@host:22/x';
    expect(redact(text)).toBe(text);
  });
});

describe('keys from the config', () => {
  it('finds every string under a secret-named field, by its path, and what ${env:NAME} refers to', () => {
    const config = {
      providers: {
        openai: { apiKey: 'cfg-openai-0123456789', baseURL: 'https://api.openai.com/v1' },
        ollama: { apiKeyEnv: 'OLLAMA_API_KEY' },
      },
      mcpServers: {
        github: { command: 'x', env: { GITHUB_TOKEN: '${env:MY_GH}' }, headers: { Authorization: 'Bearer cfg-bearer-98765' } },
      },
      limits: { maxTokens: 4096 },
      policies: { vault_read_secret: 'requires_approval' },
      tokenizer: 'cl100k_base_tokenizer',
    };
    expect(configSecretValues(config, { MY_GH: 'gh-from-env-2468' })).toEqual([
      { name: 'providers.openai.apiKey', value: 'cfg-openai-0123456789' },
      { name: 'MY_GH', value: 'gh-from-env-2468' },
      { name: 'mcpServers.github.headers.Authorization', value: 'cfg-bearer-98765' },
    ]);
  });

  it('are redacted from what tools print, like keys from the environment', async () => {
    const root = mkdtempSync(join(tmpdir(), 'legion-redact-config-'));
    const globalConfigFile = join(root, 'global-config.json');
    const key = 'cfg-anthropic-key-not-in-env-0123456789';
    writeFileSync(globalConfigFile, JSON.stringify({ providers: { anthropic: { apiKey: key } } }));
    writeFileSync(join(root, 'notes.txt'), `the key is ${key}\n`);
    const legion = Legion.create({ root, globalConfigFile, env: { PATH: process.env.PATH } });
    try {
      const result = await legion.executeTool('shell_run', { command: 'cat notes.txt' });
      expect(result).toMatchObject({ status: 'success' });
      expect(JSON.stringify(result)).not.toContain(key);
      expect(JSON.stringify(result)).toContain('the key is [redacted:providers.anthropic.apiKey]');
    } finally {
      await legion.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('long output', () => {
  const secret = 'svc-secret-value-0123456789abcdefghij';
  /** The artifact limit of these workspaces: a tool's output keeps its first and last 100 000 bytes, a command's streams their first and last 100 000 each. */
  const artifactMaxBytes = 200_000;

  async function withLegion(run: (legion: Legion, root: string) => Promise<void>): Promise<void> {
    const root = mkdtempSync(join(tmpdir(), 'legion-redact-cut-'));
    // Written before the workspace is made: the config that is there is kept.
    mkdirSync(join(root, '.legion'));
    writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ version: 1, context: { artifactMaxBytes } }));
    const legion = Legion.create({
      root,
      globalConfigFile: join(root, 'none.json'),
      env: { PATH: process.env.PATH, MY_SERVICE_TOKEN: secret },
      participants: [userParticipant(), agentParticipant('worker', { tools: ['flood'], delegation: 'none' })],
    });
    try {
      await run(legion, root);
    } finally {
      await legion.close();
      rmSync(root, { recursive: true, force: true });
    }
  }

  it('is redacted before it is cut, so a secret straddling the cut leaks neither half', async () => {
    await withLegion(async (legion) => {
      // The secret's middle sits exactly where the artifact limit cuts (at half of it).
      const before = 'a'.repeat(artifactMaxBytes / 2 - secret.length / 2);
      const text = `${before}${secret}${'b'.repeat(artifactMaxBytes)}`;
      legion.tools.register(
        defineTool({
          name: 'flood',
          description: 'prints a lot',
          effect: 'read',
          inputSchema: z.object({}),
          execute: async () => ({ status: 'success', data: text }),
        }),
      );
      const seen: string[] = [];
      legion.providers.useFor(
        'worker',
        new ScriptedProvider(
          [
            { toolCalls: [{ id: 'f1', name: 'flood', input: {} }] },
            { expect: (request) => void seen.push(JSON.stringify(request.messages)), text: 'done' },
          ],
          'worker',
        ),
      );
      const session = await legion.sessions.create();
      expect(await legion.send(session, 'flood it', { to: 'worker' })).toMatchObject({ status: 'success' });
      const artifact = (await session.artifacts.getText('tool-f1.txt'))!;
      expect(/bytes cut/.test(artifact)).toBe(true);
      for (const kept of [artifact, ...seen]) {
        expect(kept.includes(secret.slice(0, 12))).toBe(false);
        expect(kept.includes(secret.slice(-12))).toBe(false);
      }
    });
  });

  it('of a command, cut where it was captured, leaks no piece of a secret on either side of the cut', async () => {
    await withLegion(async (legion) => {
      // shell_run keeps the first and last 100 000 bytes of each stream (the artifact limit): the secret straddles the head's end.
      const command = `node -e "process.stdout.write('a'.repeat(99990) + process.env.MY_SERVICE_TOKEN + 'b'.repeat(240000))"`;
      const result = await legion.executeTool('shell_run', { command: command.replace('node', process.execPath) });
      const content = JSON.stringify(result);
      // Booleans, not toContain: a failure would print 200 000 characters.
      expect(/bytes cut/.test(content)).toBe(true);
      expect(content.includes('[redacted:MY_SERVICE_TOKEN]')).toBe(true);
      expect(content.includes(secret.slice(0, 6))).toBe(false);
    });
  });
});

describe('text that was already cut', () => {
  it('keeps no piece of a known secret on either side of a cut mark', () => {
    const secret = 'svc-secret-value-0123456789abcdefghij';
    const redact = createRedactor({ env: { MY_SERVICE_TOKEN: secret } });
    const text = `head ${secret.slice(0, 10)}\n… [512 bytes cut] …\n${secret.slice(25)} tail`;
    expect(redact(text)).toBe('head [redacted:MY_SERVICE_TOKEN]\n… [512 bytes cut] …\n[redacted:MY_SERVICE_TOKEN] tail');
  });

  it('hides the start of a well-known key shape cut off at the end of the head', () => {
    expect(createRedactor()(`key: ${ANTHROPIC.slice(0, 14)}\n… [9 characters cut] …\nmore`)).toBe(
      'key: [redacted:anthropic-api-key]\n… [9 characters cut] …\nmore',
    );
  });
});

describe('error and warning events', () => {
  it('carry no secret, whoever emits them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'legion-redact-events-'));
    const legion = Legion.create({
      root,
      globalConfigFile: join(root, 'none.json'),
      env: { PATH: process.env.PATH, MY_SERVICE_TOKEN: 'svc-token-for-events-1234' },
    });
    const seen: string[] = [];
    legion.events.onAny((event) => seen.push(JSON.stringify(event)));
    legion.events.emit('error:raised', {
      scope: 'mcp server x',
      message: `could not start: token svc-token-for-events-1234 rejected; also ${GITHUB}`,
    });
    legion.events.emit('storage:warning', { path: 'x', offset: 0, problem: `bad line: postgres://u:pw-1234@db/x` });
    await legion.close();
    rmSync(root, { recursive: true, force: true });
    expect(seen.join('\n')).toContain('token [redacted:MY_SERVICE_TOKEN] rejected; also [redacted:github-token]');
    expect(seen.join('\n')).toContain('postgres://u:[redacted]@db/x');
    expect(seen.join('\n')).not.toMatch(/svc-token-for-events|pw-1234|ghp_/);
  });
});

describe("redactSecrets (one environment, as commands' output is redacted)", () => {
  it('also hides shapes and URL passwords', () => {
    expect(redactSecrets(`${ANTHROPIC} postgres://u:pw@h`, {})).toBe('[redacted:anthropic-api-key] postgres://u:[redacted]@h');
  });
});
