import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseParticipant, type Participant } from '../team/collective/participant.js';
import { createFileDeleteTool } from '../tools/builtin/files/file-delete.js';
import { createFileEditTool } from '../tools/builtin/files/file-edit.js';
import { createFileReadTool } from '../tools/builtin/files/file-read.js';
import { createFileWriteTool } from '../tools/builtin/files/file-write.js';
import { tempWorkspace } from '../tools/builtin/__fixtures__/tool-context.js';
import { createProcessTools } from '../tools/builtin/shell/process-tools.js';
import { ProcessRegistry } from '../tools/builtin/shell/ProcessRegistry.js';
import { createShellRunTool } from '../tools/builtin/shell/shell-run.js';
import type { Tool } from '../tools/tool.js';
import { AuthEngine } from './AuthEngine.js';
import type { Policies } from '../team/collective/policy.js';
import type { ApprovalRule } from '../hitl/index.js';

const agent: Participant = parseParticipant({ id: 'dev', type: 'agent', name: 'dev', systemPrompt: '' });
const processStart = createProcessTools(new ProcessRegistry({})).find((tool) => tool.name === 'process_start')!;
const shellRun = createShellRunTool();

describe('path rules hold for every spelling of a path', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    workspace = tempWorkspace();
    mkdirSync(join(workspace.root, 'secret'));
    mkdirSync(join(workspace.root, 'x'));
    mkdirSync(join(workspace.root, 'a'));
    mkdirSync(join(workspace.root, 'src'));
    writeFileSync(join(workspace.root, 'secret', 'key.txt'), 'k');
    writeFileSync(join(workspace.root, '.env'), 'TOKEN=1');
    symlinkSync(join(workspace.root, 'secret'), join(workspace.root, 'docs'));
    symlinkSync(join(workspace.root, 'secret', 'key.txt'), join(workspace.root, 'src', 'innocent.ts'));
  });
  afterEach(() => workspace.cleanup());

  const mode = (policies: Policies, tool: Tool, input: Record<string, unknown>) =>
    new AuthEngine(policies, workspace.root).evaluate({ participant: agent, tool, input }).mode;

  it.each(['secret/key.txt', 'x/../secret/key.txt', 'secret/./key.txt', './secret//key.txt', 'docs/key.txt'])(
    'a deny on secret/** stops file_read of %s',
    (path) => {
      expect(mode({ file_read: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } }, createFileReadTool(), { path })).toBe('deny');
    },
  );

  it("the guide's deny on **/.env (docs/guide/approvals-and-questions.md) stops a/../.env and an absolute spelling", () => {
    const policies: Policies = { file_read: { rules: [{ mode: 'deny', paths: ['**/.env'] }] } };
    expect(mode(policies, createFileReadTool(), { path: 'a/../.env' })).toBe('deny');
    expect(mode(policies, createFileReadTool(), { path: join(workspace.root, 'a', '..', '.env') })).toBe('deny');
  });

  it('an auto rule holds only when every form matches: a link under src/ into secret/ asks', () => {
    const policies: Policies = { file_write: { mode: 'requires_approval', rules: [{ mode: 'auto', paths: ['src/**'] }] } };
    expect(mode(policies, createFileWriteTool(), { path: 'src/app.ts', content: '' })).toBe('auto');
    expect(mode(policies, createFileWriteTool(), { path: 'src/innocent.ts', content: '' })).toBe('requires_approval');
    expect(mode(policies, createFileWriteTool(), { path: 'src/../secret/key.txt', content: '' })).toBe('requires_approval');
    expect(mode(policies, createFileWriteTool(), { path: 'src/../../outside/x', content: '' })).toBe('requires_approval');
  });

  it('file_edit is never allowed more than file_read of its path: denied where reading is, asked where reading asks', () => {
    const policies: Policies = {
      file_read: {
        rules: [
          { mode: 'deny', paths: ['secret/**'] },
          { mode: 'requires_approval', paths: ['x/**'] },
        ],
      },
      file_write: 'auto',
    };
    expect(mode(policies, createFileEditTool(), { path: 'docs/key.txt', old_string: 'k', new_string: 'j' })).toBe('deny');
    expect(mode(policies, createFileEditTool(), { path: 'x/notes.txt', old_string: 'k', new_string: 'j' })).toBe('requires_approval');
    expect(mode(policies, createFileEditTool(), { path: 'src/app.ts', old_string: 'k', new_string: 'j' })).toBe('auto');
    // file_write reveals nothing of what the file held: a write is judged by write rules alone.
    expect(mode(policies, createFileWriteTool(), { path: 'x/notes.txt', content: '' })).toBe('auto');
  });

  it('a file_write rule also governs file_edit and file_delete', () => {
    const policies: Policies = { file_write: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } };
    expect(mode(policies, createFileEditTool(), { path: 'secret/key.txt', old_string: 'k', new_string: 'j' })).toBe('deny');
    expect(mode(policies, createFileDeleteTool(), { path: 'docs/key.txt' })).toBe('deny');
    expect(mode(policies, createFileEditTool(), { path: 'src/app.ts', old_string: 'k', new_string: 'j' })).toBe('requires_approval');
  });
});

describe('commands are governed by whatever tool runs them', () => {
  const mode = (policies: Policies, tool: Tool, command: string) =>
    new AuthEngine(policies).evaluate({ participant: agent, tool, input: { command } }).mode;

  it('a shell_run deny also stops process_start, and effect:shell names every command tool', () => {
    expect(mode({ shell_run: 'deny' }, processStart, 'touch x')).toBe('deny');
    expect(mode({ 'effect:shell': 'deny' }, processStart, 'touch x')).toBe('deny');
    expect(mode({ 'effect:shell': 'deny', shell_run: 'auto' }, shellRun, 'ls')).toBe('deny');
    expect(mode({ shell_run: { rules: [{ mode: 'deny', args: { command: 'rm ' } }] } }, processStart, 'rm -rf src')).toBe('deny');
  });

  const readme: Policies = {
    shell_run: { mode: 'requires_approval', rules: [{ mode: 'auto', args: { command: '^git (status|diff|log)\\b' } }] },
  };

  it.each(['git status', 'git diff HEAD~1', 'git log --oneline -5', 'git status && git diff', "git log --grep 'fix; rm'"])(
    'auto-approves the plain command %j',
    (command) => {
      expect(mode(readme, shellRun, command)).toBe('auto');
      expect(mode(readme, processStart, command)).toBe('auto');
    },
  );

  it.each([
    'git status; touch X',
    'git status && touch X',
    'git status\ntouch X',
    'git status $(touch X)',
    'git status `touch X`',
    'git log --output=.legion/config.json -1',
    'git log -o out.txt',
    'git diff > patch.txt',
    'git log | sh',
    'git status &',
    'git -c core.pager=touch status',
    'git status "$HOME"',
    'git status "unterminated',
  ])('falls back to asking for %j', (command) => {
    expect(mode(readme, shellRun, command)).toBe('requires_approval');
  });

  it('a command that refers to .legion/ always asks, even under a plain auto', () => {
    expect(mode({ shell_run: 'auto' }, shellRun, 'ls src')).toBe('auto');
    expect(mode({ shell_run: 'auto' }, shellRun, "cp x '.legion/config.json'")).toBe('requires_approval');
    expect(mode({ '*': 'auto' }, processStart, 'echo hi > .legion/x')).toBe('requires_approval');
  });

  it.each([
    'cp x .l*/config.json',
    'cp x ./.[l]egion/collective/participants/a.json',
    'echo {} > .*/config.json',
    'git log --output=.leg?on/config.json -1',
  ])('a glob the shell would expand to .legion/ asks too: %j', (command) => {
    expect(mode({ shell_run: 'auto' }, shellRun, command)).toBe('requires_approval');
  });

  it('a glob that skips dot files, as the shell expands it, runs as before', () => {
    expect(mode({ shell_run: 'auto' }, shellRun, 'ls * src/*.ts')).toBe('auto');
    expect(mode({ shell_run: 'auto' }, shellRun, 'shopt -s dotglob; rm -rf *')).toBe('requires_approval');
  });

  it('a deny rule on commands applies when any command in the line matches', () => {
    const policies: Policies = { shell_run: { mode: 'auto', rules: [{ mode: 'deny', args: { command: '^rm\\b' } }] } };
    expect(mode(policies, shellRun, 'ls; rm -rf src')).toBe('deny');
    expect(mode(policies, shellRun, 'ls && "rm" -rf src')).toBe('deny');
    expect(mode(policies, shellRun, 'ls')).toBe('auto');
  });
});

describe('an "approve always" rule never widens a deny', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    workspace = tempWorkspace();
    mkdirSync(join(workspace.root, 'secret'));
    symlinkSync(join(workspace.root, 'secret'), join(workspace.root, 'docs'));
  });
  afterEach(() => workspace.cleanup());

  const everything = (tool: string): ApprovalRule[] => [
    { version: 1, id: 'rule_all', participant: 'dev', tool, createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'user' },
    {
      version: 1,
      id: 'rule_star',
      participant: 'dev',
      tool,
      pattern: tool === 'file_write' ? '**' : '*',
      createdAt: '2026-01-01T00:00:00.000Z',
      createdBy: 'user',
    },
  ];
  const mode = (policies: Policies, tool: Tool, input: Record<string, unknown>, participant: Participant = agent) =>
    new AuthEngine(policies, workspace.root, { approvalRules: () => everything(tool.name) }).evaluate({ participant, tool, input }).mode;

  it.each<[string, Policies]>([
    ['a workspace deny', { shell_run: 'deny' }],
    ['a wildcard deny', { '*': 'deny' }],
    ['an effect deny', { 'effect:shell': 'deny' }],
    ['a deny rule on the command', { shell_run: { mode: 'requires_approval', rules: [{ mode: 'deny', args: { command: '^rm\\b' } }] } }],
  ])('%s holds for shell_run and process_start with a rule for every command', (_, policies) => {
    // The rules are in force: without the deny they approve the very same call.
    expect(mode({}, shellRun, { command: 'rm -rf src' })).toBe('auto');
    expect(mode(policies, shellRun, { command: 'rm -rf src' })).toBe('deny');
    expect(mode(policies, processStart, { command: 'rm -rf src' })).toBe('deny');
  });

  it("a participant's deny holds, and the rule still approves where only approval was asked", () => {
    const denied = parseParticipant({ id: 'dev', type: 'agent', name: 'dev', systemPrompt: '', policies: { shell_run: 'deny' } });
    expect(mode({}, shellRun, { command: 'ls' }, denied)).toBe('deny');
    expect(mode({}, shellRun, { command: 'ls' })).toBe('auto');
  });

  it('a path deny holds for every spelling, a link included', () => {
    const policies: Policies = { file_write: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } };
    for (const path of ['secret/key', 'x/../secret/key', 'docs/key'])
      expect(mode(policies, createFileWriteTool(), { path, content: '' })).toBe('deny');
    expect(mode(policies, createFileWriteTool(), { path: 'src/app.ts', content: '' })).toBe('auto');
  });
});
