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
