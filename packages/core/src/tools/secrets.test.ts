import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { initWorkspace } from '../collective/init-workspace.js';
import { Legion } from '../Legion.js';
import { agentParticipant, userParticipant } from '../testing/index.js';
import { secretRedactor } from './redact.js';
import { defineTool } from './tool.js';

const ANTHROPIC_KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
const DEPLOY_TOKEN = 'dpl_0123456789abcdefghijklmnop';

describe('secrets never leave as tool output, and commands do not get the provider keys', () => {
  let root: string;
  let legion: Legion | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-secrets-'));
    initWorkspace(root, { participants: [userParticipant(), agentParticipant('worker')] });
  });
  afterEach(async () => {
    await legion?.close();
    legion = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  const open = (globalConfig: Record<string, unknown> = {}): Legion => {
    const globalConfigFile = join(root, 'global.json');
    writeFileSync(globalConfigFile, JSON.stringify(globalConfig));
    legion = Legion.open({ root, globalConfigFile, env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: ANTHROPIC_KEY, DEPLOY_TOKEN, HOME: root } });
    return legion;
  };
  const shell = async (command: string): Promise<string> => {
    const result = await legion!.executeTool('shell_run', { command });
    return result.status === 'success' ? result.content : result.error;
  };

  it('a command does not see a provider key unless shell.passEnv names it; other variables pass', async () => {
    open();
    expect(await shell('echo "anthropic=[${ANTHROPIC_API_KEY:-unset}]"; echo "deploy=[$DEPLOY_TOKEN]"')).toBe('exit code 0\n[stdout]\nanthropic=[unset]\ndeploy=[[redacted:DEPLOY_TOKEN]]');
    await legion!.close();
    writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(root, '.legion', 'config.json'), 'utf8')), shell: { passEnv: ['ANTHROPIC_API_KEY'] } }));
    open();
    expect(await shell('echo "anthropic=[${ANTHROPIC_API_KEY:-unset}]"')).toBe('exit code 0\n[stdout]\nanthropic=[[redacted:ANTHROPIC_API_KEY]]');
  });

  it('keys from the global config file are redacted like keys from the environment', async () => {
    open({ providers: { openai: { apiKey: 'global-openai-key-0042' } } });
    expect(await shell('echo the key is global-openai-key-0042')).toBe('exit code 0\n[stdout]\nthe key is [redacted:providers.openai.apiKey]');
  });

  it('a key that straddles the cut of long output leaks no part of it', async () => {
    open();
    // The tool result is cut at 100,000 characters (50,000 kept each side): the key starts just before that point.
    legion!.tools.register(
      defineTool({
        name: 'long_report',
        description: 'prints a lot',
        effect: 'read',
        inputSchema: z.object({}),
        execute: async () => ({ status: 'success', data: `${'a '.repeat(24_990)} ${DEPLOY_TOKEN} ${'b '.repeat(40_000)}` }),
      }),
    );
    const result = await legion!.executeTool('long_report', {});
    const text = result.status === 'success' ? result.content : result.error;
    expect(text).toContain('characters cut');
    expect(text).not.toContain(DEPLOY_TOKEN.slice(0, 12));
    expect(text).not.toContain(DEPLOY_TOKEN.slice(-12));
    // The same for a command's own output cut (each stream keeps its first and last 15,000 bytes).
    const output = await shell(`printf '%14990s' '' | tr ' ' x; printf ' %s ' "$DEPLOY_TOKEN"; head -c 40000 /dev/zero | tr '\\0' y`);
    expect(output).toContain('bytes cut');
    expect(output).not.toContain(DEPLOY_TOKEN.slice(0, 8));
    expect(output).not.toContain(DEPLOY_TOKEN.slice(-8));
  });
});

describe('secretRedactor', () => {
  const redact = secretRedactor({});

  it.each([
    ['an Anthropic key', `key: ${ANTHROPIC_KEY}`, 'key: [redacted:anthropic-key]'],
    ['an OpenAI project key', 'OPENAI=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123', 'OPENAI=[redacted:openai-key]'],
    ['a GitHub token', 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB end', 'token [redacted:github-token] end'],
    ['an AWS access key id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id = [redacted:aws-access-key]'],
    ['a URL password', 'DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/app', 'DATABASE_URL=postgres://app:[redacted]@db.internal:5432/app'],
    [
      'a private key block',
      'before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----\nafter',
      'before\n[redacted:private-key]\nafter',
    ],
    ['a private key cut before its end', 'x -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA', 'x [redacted:private-key]'],
  ])('redacts %s that Legion was never told about', (_name, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'https://example.com/path?q=1 sk-short task-list AKIA ghp_ and a plain sentence.';
    expect(redact(text)).toBe(text);
  });
});
