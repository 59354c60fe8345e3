import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkspace } from '../workspace.test-support.js';
import { initialize, startEditor, type AcpEditor, type EditorBuffers } from './acp-client.test-support.js';

// `legion acp` as a real process with an editor (the ACP SDK's client side) that offers its files:
// the agents' file tools read the editor's unsaved buffers and write through it. Models are aimock on 127.0.0.1.

describe('legion acp, with an editor that offers its files', () => {
  const workspace = useWorkspace('legion-acp-fs-');
  const { mock, env, useModel } = workspace;
  const editors: AcpEditor[] = [];
  afterEach(async () => {
    for (const editor of editors.splice(0)) await editor.close();
  });

  /** The result the editor was shown for a tool call: its last update's raw output, and its status. */
  const outcomeOf = (editor: AcpEditor, toolCallId: string): { status: unknown; output: string } => {
    const update = editor.updates
      .map((notification) => notification.update)
      .filter((update) => update.sessionUpdate === 'tool_call_update' && update.toolCallId === toolCallId)
      .at(-1);
    return {
      status: update && 'status' in update ? update.status : undefined,
      output: JSON.stringify(update && 'rawOutput' in update ? update.rawOutput : null),
    };
  };

  it("reads the editor's unsaved buffer, writes and edits through the editor, falls back to the disk for a file it has not open, and refuses a path outside the workspace before asking it", async () => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    const root = realpathSync(workspace.dir);
    writeFileSync(join(root, 'notes.txt'), 'saved on disk\n');
    writeFileSync(join(root, 'closed.txt'), 'only on disk\n');
    writeFileSync(join(root, 'draft.md'), 'draft on disk\n');
    const call = (id: string, name: string, input: Record<string, unknown>) => ({ id, name, arguments: JSON.stringify(input) });
    mock.on(
      { model: 'claude-coord', userMessage: 'Work in my buffers', hasToolResult: false },
      {
        toolCalls: [
          call('toolu_read', 'file_read', { path: 'notes.txt' }),
          call('toolu_closed', 'file_read', { path: 'closed.txt' }),
          call('toolu_outside', 'file_read', { path: '../outside.txt' }),
          call('toolu_write', 'file_write', { path: 'new.txt', content: 'written by the agent\n' }),
          call('toolu_edit', 'file_edit', { path: 'draft.md', old_string: 'unsaved draft', new_string: 'edited draft' }),
          call('toolu_legion', 'file_write', { path: '.legion/config.json', content: '{}' }),
        ],
      },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Work in my buffers', hasToolResult: true }, { content: 'Done.' });
    const files: EditorBuffers = {
      buffers: new Map([
        [join(root, 'notes.txt'), 'unsaved in the editor\n'],
        [join(root, 'draft.md'), 'an unsaved draft\n'],
      ]),
      reads: [],
      writes: [],
    };
    const editor = startEditor(
      workspace.dir,
      { ...process.env, ...env() },
      () => ({ outcome: { outcome: 'selected', optionId: 'once' } }),
      files,
    );
    editors.push(editor);
    await initialize(editor, { fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });

    const { stopReason } = await editor.connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Work in my buffers' }],
    });
    expect(stopReason).toBe('end_turn');

    // The buffer's text, not the disk's.
    const read = outcomeOf(editor, 'toolu_read');
    expect(read.status).toBe('completed');
    expect(read.output).toContain('unsaved in the editor');
    expect(read.output).not.toContain('saved on disk');
    // The editor had no buffer for it (an error answer): the disk's text.
    expect(files.reads).toContain(join(root, 'closed.txt'));
    expect(outcomeOf(editor, 'toolu_closed').output).toContain('only on disk');
    // Refused by the workspace check; the editor was never asked.
    expect(outcomeOf(editor, 'toolu_outside')).toMatchObject({ status: 'failed' });
    expect(outcomeOf(editor, 'toolu_outside').output).toContain('outside the workspace');
    expect(outcomeOf(editor, 'toolu_legion')).toMatchObject({ status: 'failed' });
    expect(
      [...files.reads, ...files.writes.map((write) => write.path)].filter(
        (path) => !path.startsWith(`${root}/`) || path.includes('.legion'),
      ),
    ).toEqual([]);

    // The write and the edit reached the editor (the edit made on the unsaved buffer); the disk is as it was.
    expect(files.writes).toEqual(
      expect.arrayContaining([
        { path: join(root, 'new.txt'), content: 'written by the agent\n' },
        { path: join(root, 'draft.md'), content: 'an edited draft\n' },
      ]),
    );
    expect(files.writes).toHaveLength(2);
    // The card asked about the edit of the buffer (what the tool changes), not of the disk.
    const editCard = editor.permissions.find((request) => request.toolCall.toolCallId === 'toolu_edit');
    expect(editCard?.toolCall.content).toEqual([
      { type: 'diff', path: join(root, 'draft.md'), oldText: 'an unsaved draft\n', newText: 'an edited draft\n' },
    ]);
    expect(outcomeOf(editor, 'toolu_write').status).toBe('completed');
    expect(outcomeOf(editor, 'toolu_edit').status).toBe('completed');
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
    expect(readFileSync(join(root, 'draft.md'), 'utf8')).toBe('draft on disk\n');
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('saved on disk\n');
  }, 120_000);

  it('an editor that does not offer its files is not asked: the tools use the disk as before', async () => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    const root = realpathSync(workspace.dir);
    writeFileSync(join(root, 'notes.txt'), 'saved on disk\n');
    mock.on(
      { model: 'claude-coord', userMessage: 'Read my notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_read', name: 'file_read', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Read my notes', hasToolResult: true }, { content: 'Read.' });
    const files: EditorBuffers = { buffers: new Map([[join(root, 'notes.txt'), 'unsaved in the editor\n']]), reads: [], writes: [] };
    const editor = startEditor(workspace.dir, { ...process.env, ...env() }, undefined, files);
    editors.push(editor);
    await initialize(editor);
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });
    await editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Read my notes' }] });

    expect(outcomeOf(editor, 'toolu_read').output).toContain('saved on disk');
    expect(files.reads).toEqual([]);
  }, 120_000);
});
