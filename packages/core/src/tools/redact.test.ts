import { redactSecrets, secretValues } from './redact.js';

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
    expect(secretValues(env).map((secret) => secret.name)).toEqual(['AWS_CREDENTIALS_FILE_SECRET', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD']);
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
    test.legion.tools.register(defineTool({ name: 'leaky', description: 'prints its environment', effect: 'read', inputSchema: z.object({}), execute: async () => ({ status: 'success', data: `key=${secret}` }) }));
    const seen: string[] = [];
    test.legion.events.onAny((event) => seen.push(JSON.stringify(event)));
    const session = test.legion.sessions.create();
    expect(await test.legion.send(session, 'go', { to: 'solo' })).toMatchObject({ reply: 'ok' });
    const dir = `${test.root}/.legion/sessions/${session.id}/conversations`;
    const logs = readdirSync(dir).map((file) => readFileSync(`${dir}/${file}`, 'utf8')).join('\n');
    expect(logs).toContain('key=[redacted:MY_SERVICE_API_KEY]');
    expect(logs).not.toContain(secret);
    expect(seen.join('\n')).not.toContain(secret);
    await test.cleanup();
  });
});
