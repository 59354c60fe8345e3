import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import {
  ConfirmedCalls,
  editorConfirmationStands,
  judgeEditorCall,
  listEditorTools,
  resolveEditorCall,
  runAgentForEditor,
  runEditorCall,
} from './editor-tool-calls.js';

/** The editor's agent's calls: legion_<builtin> and legion_call_tool, as the workspace's user under its policies. */
describe("the editor's agents' calls of Legion tools", () => {
  let test: TestLegion;
  afterEach(async () => {
    await test?.cleanup();
  });

  function workspace(policies: Record<string, unknown>): TestLegion {
    const made = createTestLegion({ participants: [userParticipant()] });
    const file = join(made.root, '.legion', 'config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), policies }, null, 2));
    return { ...made, legion: made.reopen() };
  }
  const never = async (question: string): Promise<boolean> => {
    throw new Error(`asked: ${question}`);
  };

  it('map legion_<builtin> to the built-in and legion_call_tool to the tool it names; a malformed call names the expected shape', () => {
    expect(resolveEditorCall('legion_file_read', { path: 'a' })).toEqual({ ok: true, call: { tool: 'file_read', input: { path: 'a' } } });
    expect(resolveEditorCall('legion_call_tool', { tool: 'mcp__x__y', input: { a: 1 } })).toEqual({
      ok: true,
      call: { tool: 'mcp__x__y', input: { a: 1 } },
    });
    expect(resolveEditorCall('legion_call_tool', { tool: 'file_read' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/takes \{ "tool".*input/),
    });
    expect(resolveEditorCall('legion_create_agent', {})).toMatchObject({
      ok: false,
      error: expect.stringContaining('not a Legion tool offered'),
    });
  });

  it('run a read at once and give its content', async () => {
    test = workspace({});
    writeFileSync(join(test.root, 'notes.txt'), 'read by the editor');
    const call = resolveEditorCall('legion_file_read', { path: 'notes.txt' });
    expect(call.ok).toBe(true);
    if (!call.ok) return;
    expect(await judgeEditorCall(test.legion, call.call)).toEqual({ mode: 'run' });
    expect(await runEditorCall(test.legion, call.call, never)).toMatchObject({
      status: 'success',
      content: expect.stringContaining('read by the editor'),
    });
  });

  it('refuse what the workspace denies, by each route, without asking and without running it', async () => {
    test = workspace({ file_delete: 'deny', file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['private/**'] }] } });
    writeFileSync(join(test.root, 'keep.txt'), 'kept');
    mkdirSync(join(test.root, 'private'));
    writeFileSync(join(test.root, 'private', 'key.txt'), 'the private key');
    for (const [editorTool, input] of [
      ['legion_file_delete', { path: 'keep.txt' }],
      ['legion_call_tool', { tool: 'file_delete', input: { path: 'keep.txt' } }],
      ['legion_file_read', { path: 'private/key.txt' }],
      ['legion_call_tool', { tool: 'file_read', input: { path: 'private/key.txt' } }],
    ] as const) {
      const call = resolveEditorCall(editorTool, input);
      if (!call.ok) throw new Error(call.error);
      expect(await judgeEditorCall(test.legion, call.call), editorTool).toMatchObject({
        mode: 'refuse',
        error: expect.stringContaining('is denied'),
      });
      const result = await runEditorCall(test.legion, call.call, never);
      expect(result, editorTool).toMatchObject({ status: 'error', error: expect.stringContaining('is denied') });
      expect(JSON.stringify(result)).not.toContain('the private key');
    }
    expect(readFileSync(join(test.root, 'keep.txt'), 'utf8')).toBe('kept');
    // Nor does a search show the denied file.
    const grep = await runEditorCall(test.legion, { tool: 'file_grep', input: { pattern: 'key' } }, never);
    expect(JSON.stringify(grep)).not.toContain('the private key');
  });

  it('ask before a call that needs approval, and run it only when the user confirms', async () => {
    test = workspace({});
    const call = { tool: 'file_write', input: { path: 'out.txt', content: 'written' } };
    expect(await judgeEditorCall(test.legion, call)).toMatchObject({ mode: 'confirm', question: expect.stringContaining('file_write') });
    expect(await runEditorCall(test.legion, call, async () => false)).toMatchObject({
      status: 'error',
      error: expect.stringContaining('did not approve'),
    });
    expect(existsSync(join(test.root, 'out.txt'))).toBe(false);
    expect(await runEditorCall(test.legion, call, async () => true)).toMatchObject({ status: 'success' });
    expect(readFileSync(join(test.root, 'out.txt'), 'utf8')).toBe('written');
  });

  it("check the input against the tool's own schema before anyone is asked", async () => {
    test = workspace({});
    const judged = await judgeEditorCall(test.legion, { tool: 'file_write', input: { path: 7, content: 'x', extra: true } });
    expect(judged).toMatchObject({ mode: 'refuse', error: expect.stringMatching(/^file_write: invalid input: path/) });
    expect(await runEditorCall(test.legion, { tool: 'file_write', input: { path: 7 } }, never)).toMatchObject({ status: 'error' });
    expect(await judgeEditorCall(test.legion, { tool: 'no_such_tool', input: {} })).toMatchObject({
      mode: 'refuse',
      error: expect.stringContaining('legion_list_tools lists'),
    });
  });

  it("never answer approvals in the user's name, whatever the policy allows", async () => {
    test = workspace({ approval_response: 'auto' });
    const judged = await judgeEditorCall(test.legion, { tool: 'approval_response', input: { decisions: [] } });
    expect(judged).toMatchObject({ mode: 'refuse', error: expect.stringContaining("never a model's in their name") });
    expect(await listEditorTools(test.legion, {})).not.toContain('approval_response');
  });

  it('list what legion_call_tool reaches, with what the policies make of each for the user', async () => {
    test = workspace({ shell_run: 'deny' });
    const listed = await listEditorTools(test.legion, { prefix: '' });
    expect(listed).toMatch(/^file_read \(read, runs\): Read a text file in the workspace\.$/m);
    expect(listed).toMatch(/^file_write \(write, asks the user\): /m);
    expect(listed).toMatch(/^shell_run \(shell, denied\): /m);
    expect(await listEditorTools(test.legion, { prefix: 'file_read', full: true })).toMatch(/input: \{"type":"object".*"path"/);
    expect(await listEditorTools(test.legion, { prefix: 3 })).toMatch(/^Error: legion_list_tools takes/);
  });

  // VS Code keeps "Always allow" per editor tool: allowing legion_call_tool once would approve every tool it reaches.
  it("let VS Code's confirmation stand for Legion's approval only for a tool offered one by one, never for legion_call_tool", () => {
    expect(editorConfirmationStands('legion_file_write')).toBe(true);
    expect(editorConfirmationStands('legion_shell_run')).toBe(true);
    expect(editorConfirmationStands('legion_call_tool')).toBe(false);
    const shell = { tool: 'shell_run', input: { command: 'rm -rf ~' } };
    const confirmed = new ConfirmedCalls();
    confirmed.asked('legion_call_tool', shell);
    expect(confirmed.take('legion_call_tool', shell)).toBe(false);
    // A confirmation (even one the user cancelled, so never taken) of legion_shell_run does not let the same call through legion_call_tool.
    confirmed.asked('legion_shell_run', shell);
    expect(confirmed.take('legion_call_tool', shell)).toBe(false);
    expect(confirmed.take('legion_shell_run', shell)).toBe(true);
    expect(confirmed.take('legion_shell_run', shell)).toBe(false);
  });

  it('judge a call on the input the tool runs with: a path left out is the default path, and a rule on it holds', async () => {
    test = workspace({
      file_list: { mode: 'auto', rules: [{ mode: 'requires_approval', paths: ['.'] }] },
      file_glob: { mode: 'auto', rules: [{ mode: 'deny', paths: ['.'] }] },
    });
    writeFileSync(join(test.root, 'listed.txt'), 'x');
    expect(await judgeEditorCall(test.legion, { tool: 'file_list', input: {} })).toMatchObject({ mode: 'confirm' });
    expect(await runEditorCall(test.legion, { tool: 'file_list', input: {} }, async () => false)).toMatchObject({
      status: 'error',
      error: expect.stringContaining('did not approve'),
    });
    expect(await judgeEditorCall(test.legion, { tool: 'file_glob', input: { pattern: '*.txt' } })).toMatchObject({
      mode: 'refuse',
      error: expect.stringContaining('is denied'),
    });
    expect(JSON.stringify(await runEditorCall(test.legion, { tool: 'file_glob', input: { pattern: '*.txt' } }, never))).not.toContain(
      'listed.txt',
    );
  });

  it('give legion_run_agent a malformed task or a participant that is no agent back as an error naming the fix, never a throw', async () => {
    test = workspace({});
    for (const input of [undefined, {}, { task: 7 }, { task: '  ' }, { task: 'x', agent: 'user', extra: 1 }]) {
      expect(await runAgentForEditor(test.legion, input), JSON.stringify(input)).toMatch(/^Error: legion_run_agent takes \{ "task"/);
    }
    expect(await runAgentForEditor(test.legion, { task: 'hello', agent: 'user' })).toMatch(
      /^Error: "user" is not an agent of this collective; agents: /,
    );
    expect(await runAgentForEditor(test.legion, { task: 'hello', agent: 'nobody' })).toMatch(/^Error: "nobody" is not an agent/);
  });
});
