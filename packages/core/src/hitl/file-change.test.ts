import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthEngine } from '../authorization/AuthEngine.js';
import { parseParticipant, type Participant } from '../team/collective/participant.js';
import type { Policies } from '../team/collective/policy.js';
import type { EditorFiles } from '../session/index.js';
import { FILE_CHANGE_MAX_BYTES, fileChange, fileChangeInEditor } from './file-change.js';

const agent = (policies?: Policies): Participant =>
  parseParticipant({ id: 'dev', type: 'agent', name: 'dev', systemPrompt: '', ...(policies ? { policies } : {}) });

describe('fileChange', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'legion-file-change-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'legion-file-change-out-')));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const change = (tool: string, input: unknown, requester: Participant | undefined = agent(), auth = new AuthEngine({}, root)) =>
    fileChange({ workspaceRoot: root, auth, requester, tool, input });

  it('shows a file_write over an existing file against the file as it is, and a new file against nothing', () => {
    writeFileSync(join(root, 'notes.md'), 'one\ntwo\n');
    expect(change('file_write', { path: 'notes.md', content: 'one\nthree\n' })).toEqual({
      status: 'shown',
      path: 'notes.md',
      before: 'one\ntwo\n',
      after: 'one\nthree\n',
    });
    expect(change('file_write', { path: 'new/file.txt', content: 'hi' })).toEqual({
      status: 'shown',
      path: 'new/file.txt',
      before: null,
      after: 'hi',
    });
  });

  it('applies a file_edit to the file as it is, literally, or says why the edit would fail', () => {
    writeFileSync(join(root, 'a.ts'), 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
    expect(change('file_edit', { path: 'a.ts', old_string: 'b = 2', new_string: 'b = $&' })).toMatchObject({
      status: 'shown',
      before: 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
      after: 'const a = 1;\nconst b = $&;\nconst a2 = 1;\n',
    });
    expect(change('file_edit', { path: 'a.ts', old_string: '= 1', new_string: '= 3', replace_all: true })).toMatchObject({
      after: 'const a = 3;\nconst b = 2;\nconst a2 = 3;\n',
    });
    expect(change('file_edit', { path: 'a.ts', old_string: '= 1', new_string: '= 3' })).toMatchObject({
      status: 'not_shown',
      reason: expect.stringContaining('occurs 2 times'),
    });
    expect(change('file_edit', { path: 'a.ts', old_string: 'nowhere', new_string: 'x' })).toMatchObject({
      status: 'not_shown',
      reason: expect.stringContaining('not in the file'),
    });
    expect(change('file_edit', { path: 'missing.ts', old_string: 'x', new_string: 'y' })).toMatchObject({
      status: 'not_shown',
      reason: expect.stringContaining('does not exist'),
    });
  });

  it('does not read outside the workspace, through a link out, into .legion/, or where reading is denied', () => {
    writeFileSync(join(outside, 'secret.txt'), 'SECRET');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    // A worktree's folder exists while its delegate's call waits for approval.
    mkdirSync(join(root, '.legion', 'worktrees', 'dev-1'), { recursive: true });
    writeFileSync(join(root, '.legion', 'config.json'), '{}');
    writeFileSync(join(root, '.env'), 'TOKEN=SECRET');
    const reasons = [
      change('file_write', { path: join(outside, 'secret.txt'), content: 'x' }),
      change('file_write', { path: '../' + outside.split('/').at(-1) + '/secret.txt', content: 'x' }),
      change('file_write', { path: 'link.txt', content: 'x' }),
      change('file_write', { path: '.legion/config.json', content: 'x' }),
      change(
        'file_write',
        { path: '.env', content: 'x' },
        agent(),
        new AuthEngine({ file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['.env'] }] } }, root),
      ),
      change(
        'file_write',
        { path: '.env', content: 'x' },
        agent({ file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['.env'] }] } }),
      ),
      fileChange({
        workspaceRoot: root,
        auth: new AuthEngine({}, root),
        requester: undefined,
        tool: 'file_write',
        input: { path: '.env', content: 'x' },
      }),
    ];
    for (const reason of reasons) {
      expect(reason?.status).toBe('not_shown');
      expect(JSON.stringify(reason)).not.toContain('SECRET');
    }
    expect(reasons[2]).toMatchObject({ reason: expect.stringContaining('symbolic link') });
    expect(reasons[4]).toMatchObject({ reason: expect.stringContaining('denied') });
  });

  it('does not read binary or large files, and leaves other tools alone', () => {
    writeFileSync(join(root, 'image.bin'), Buffer.from([1, 0, 2]));
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(FILE_CHANGE_MAX_BYTES + 1));
    expect(change('file_write', { path: 'image.bin', content: 'x' })).toMatchObject({
      status: 'not_shown',
      reason: expect.stringContaining('binary'),
    });
    expect(change('file_write', { path: 'big.txt', content: 'x' })).toMatchObject({
      status: 'not_shown',
      reason: expect.stringContaining('larger'),
    });
    expect(change('shell_run', { path: 'big.txt', command: 'ls' })).toBeUndefined();
    expect(change('file_write', 'not an object')).toBeUndefined();
  });
});

describe('fileChangeInEditor', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'legion-file-change-editor-')));
    // A worktree's folder exists while its delegate's call waits for approval.
    mkdirSync(join(root, '.legion', 'worktrees', 'dev-1'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** An editor with one open buffer; it records what it was asked to read. */
  const editor = (path: string, text: string) => {
    const asked: string[] = [];
    const files: EditorFiles = {
      readText: async (absolute) => {
        asked.push(absolute);
        return absolute === join(root, path) ? text : undefined;
      },
    };
    return { files, asked };
  };
  const input = (tool: string, fields: unknown, auth = new AuthEngine({}, root)) => ({
    workspaceRoot: root,
    auth,
    requester: agent(),
    tool,
    input: fields,
  });

  it("shows an edit against the editor's unsaved buffer, and a file the editor has not open against the disk", async () => {
    writeFileSync(join(root, 'draft.md'), 'on disk\n');
    writeFileSync(join(root, 'other.md'), 'other on disk\n');
    const { files } = editor('draft.md', 'an unsaved draft\n');
    const signal = new AbortController().signal;
    expect(
      await fileChangeInEditor(input('file_edit', { path: 'draft.md', old_string: 'unsaved', new_string: 'edited' }), files, signal),
    ).toEqual({
      status: 'shown',
      path: 'draft.md',
      before: 'an unsaved draft\n',
      after: 'an edited draft\n',
    });
    expect(await fileChangeInEditor(input('file_write', { path: 'other.md', content: 'x' }), files, signal)).toMatchObject({
      before: 'other on disk\n',
    });
  });

  it('does not ask the editor for a path the tool refuses, one the requester may not read, or a worktree file', async () => {
    const { files, asked } = editor('.env', 'SECRET=1\n');
    const signal = new AbortController().signal;
    const denied = new AuthEngine({ file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['.env'] }] } }, root);
    expect(await fileChangeInEditor(input('file_write', { path: '../elsewhere.txt', content: 'x' }), files, signal)).toMatchObject({
      status: 'not_shown',
    });
    expect(await fileChangeInEditor(input('file_write', { path: '.env', content: 'x' }, denied), files, signal)).toMatchObject({
      status: 'not_shown',
    });
    await fileChangeInEditor({ ...input('file_write', { path: '.env', content: 'x' }), worktree: 'dev-1' }, files, signal);
    expect(asked).toEqual([]);
  });
});
