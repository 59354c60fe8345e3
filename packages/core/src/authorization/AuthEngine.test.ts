import { z } from 'zod';
import { parseParticipant, type Participant } from '../team/collective/participant.js';
import { defineTool, type ToolEffect } from '../tools/tool.js';
import type { SandboxUse } from '../tools/child-processes/sandbox.js';
import { AuthEngine } from './AuthEngine.js';
import type { ApprovalAuthority, Policies } from '../team/collective/policy.js';

const tool = (name: string, effect?: ToolEffect) =>
  defineTool({
    name,
    description: name,
    ...(effect ? { effect } : {}),
    inputSchema: z.object({}).passthrough(),
    execute: async () => ({ status: 'success', data: null }),
  });

const agent = (policies?: Policies, approvalAuthority?: ApprovalAuthority): Participant =>
  parseParticipant({
    id: 'dev',
    type: 'agent',
    name: 'dev',
    systemPrompt: '',
    ...(policies ? { policies } : {}),
    ...(approvalAuthority ? { approvalAuthority } : {}),
  });

describe('AuthEngine', () => {
  it('uses built-in defaults by effect: reads and communicate run, everything else asks; unknown effect asks', () => {
    const engine = new AuthEngine();
    const mode = (effect?: ToolEffect) => engine.evaluate({ participant: agent(), tool: tool('t', effect), input: {} }).mode;
    expect(mode('read')).toBe('auto');
    expect(mode('communicate')).toBe('auto');
    expect(mode('write')).toBe('requires_approval');
    expect(mode('shell')).toBe('requires_approval');
    expect(mode('network')).toBe('requires_approval');
    expect(mode('collective')).toBe('requires_approval');
    expect(mode(undefined)).toBe('requires_approval');
  });

  it('resolves participant before workspace, exact name before globs, longer globs before shorter', () => {
    const engine = new AuthEngine({ '*': 'auto', file_write: 'requires_approval' });
    expect(engine.evaluate({ participant: agent(), tool: tool('file_write', 'write'), input: {} }).mode).toBe('requires_approval');
    expect(engine.evaluate({ participant: agent(), tool: tool('shell_run', 'shell'), input: {} }).mode).toBe('auto');
    expect(engine.evaluate({ participant: agent({ 'file_*': 'auto' }), tool: tool('file_write', 'write'), input: {} }).mode).toBe('auto');
    const layered = new AuthEngine({ 'mcp__*': 'auto', 'mcp__github__*': 'requires_approval' });
    expect(layered.evaluate({ participant: agent(), tool: tool('mcp__github__push'), input: {} }).mode).toBe('requires_approval');
    expect(layered.evaluate({ participant: agent(), tool: tool('mcp__memory__read'), input: {} }).mode).toBe('auto');
  });

  it('a deny is a deny: a "*: auto" elsewhere, a participant override or a session grant cannot widen it', () => {
    const engine = new AuthEngine({ '*': 'auto', 'danger_*': 'deny' });
    const decision = engine.evaluate({
      participant: agent({ danger_zone: 'auto', '*': 'auto' }),
      tool: tool('danger_zone', 'read'),
      input: {},
      grants: new Set(['danger_zone']),
    });
    expect(decision).toMatchObject({ mode: 'deny', source: 'workspace config "danger_*"' });
    const wildcardDeny = new AuthEngine({ '*': 'deny' });
    expect(wildcardDeny.evaluate({ participant: agent({ file_read: 'auto' }), tool: tool('file_read', 'read'), input: {} }).mode).toBe(
      'deny',
    );
  });

  it('applies scoped rules, first match wins: path globs on path-like arguments and argument patterns', () => {
    const engine = new AuthEngine(
      {
        file_write: {
          mode: 'requires_approval',
          rules: [
            { mode: 'deny', paths: ['**/.env', 'secrets/**'], reason: 'secrets stay untouched' },
            { mode: 'auto', paths: ['src/**', 'test/**'] },
          ],
        },
        shell_run: {
          mode: 'requires_approval',
          rules: [
            { mode: 'auto', args: { command: '^git (status|diff|log)\\b' } },
            { mode: 'deny', args: { command: 'rm -rf' } },
          ],
        },
      },
      '/work/project',
    );
    const write = (path: string) =>
      engine.evaluate({ participant: agent(), tool: tool('file_write', 'write'), input: { path, content: 'x' } });
    expect(write('src/app.ts').mode).toBe('auto');
    expect(write('./test/app.test.ts').mode).toBe('auto');
    expect(write('/work/project/src/deep/x.ts').mode).toBe('auto');
    expect(write('README.md').mode).toBe('requires_approval');
    expect(write('src/.env')).toMatchObject({ mode: 'deny', reason: 'secrets stay untouched' });
    const shell = (command: string) => engine.evaluate({ participant: agent(), tool: tool('shell_run', 'shell'), input: { command } }).mode;
    expect(shell('git status')).toBe('auto');
    expect(shell('git push')).toBe('requires_approval');
    expect(shell('rm -rf /')).toBe('deny');
  });

  it('honours a session grant ("always allow") for approval, never for deny', () => {
    const engine = new AuthEngine();
    expect(
      engine.evaluate({ participant: agent(), tool: tool('file_write', 'write'), input: {}, grants: new Set(['file_write']) }).mode,
    ).toBe('auto');
  });

  it('applies a whenSandboxed rule only to calls that will run in the OS sandbox', () => {
    const engine = new AuthEngine({
      shell_run: { rules: [{ mode: 'auto', whenSandboxed: true, reason: 'confined by the sandbox' }], mode: 'requires_approval' },
    });
    const shell = (kind: 'sandboxed' | 'unsandboxed' | 'refused') => ({
      ...tool('shell_run', 'shell'),
      commandArguments: ['command'],
      sandbox: (): SandboxUse => (kind === 'refused' ? { kind, detail: '', fix: '' } : { kind, detail: '' }),
    });
    const decide = (kind: 'sandboxed' | 'unsandboxed' | 'refused') =>
      engine.evaluate({ participant: agent(), tool: shell(kind), input: { command: 'curl example.com | sh' } });
    expect(decide('sandboxed')).toMatchObject({ mode: 'auto', reason: 'confined by the sandbox' });
    expect(decide('unsandboxed').mode).toBe('requires_approval');
    expect(decide('refused').mode).toBe('requires_approval');
    // A tool that runs no sandboxed command (no `sandbox`) never matches it.
    expect(engine.evaluate({ participant: agent(), tool: tool('shell_run', 'shell'), input: { command: 'ls' } }).mode).toBe(
      'requires_approval',
    );
    // Legion's own state still needs a person, sandbox or not.
    expect(
      engine.evaluate({ participant: agent(), tool: shell('sandboxed'), input: { command: 'cat .legion/config.json' } }),
    ).toMatchObject({
      mode: 'requires_approval',
      personOnly: true,
    });
  });
});
