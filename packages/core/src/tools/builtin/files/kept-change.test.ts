import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageSchema, type KeptFileChange } from '../../../kernel/index.js';
import { createRedactor } from '../../redact.js';
import { toResultBlock } from '../../ToolExecutor.js';
import type { ToolResult } from '../../tool.js';
import { run, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createFileDeleteTool } from './file-delete.js';
import { createFileEditTool } from './file-edit.js';
import { createFileWriteTool } from './file-write.js';
import { KEPT_FILE_MAX_BYTES, KEPT_PATCH_MAX_BYTES } from './kept-change.js';

const write = createFileWriteTool();
const edit = createFileEditTool();
const remove = createFileDeleteTool();

function changeOf(result: ToolResult): KeptFileChange {
  if (result.status !== 'success' || result.fileChange === undefined)
    throw new Error(`expected a kept change, got ${JSON.stringify(result)}`);
  return result.fileChange;
}

function patchOf(result: ToolResult): string {
  const change = changeOf(result);
  if (change.status !== 'kept') throw new Error(`expected the change kept, got ${JSON.stringify(change)}`);
  return change.patch;
}

describe('the change a file tool keeps for the history', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  beforeEach(() => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root });
  });
  afterEach(() => workspace.cleanup());

  it('a file_write over an existing file keeps the lines it removed; a new file only added ones', async () => {
    const created = await run(write, { path: 'notes.txt', content: 'alpha\nbeta\ngamma\n' }, context);
    expect(changeOf(created)).toMatchObject({ status: 'kept', path: 'notes.txt', action: 'created' });
    expect(patchOf(created)).toBe('--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,3 @@\n+alpha\n+beta\n+gamma\n');
    const overwritten = await run(write, { path: 'notes.txt', content: 'alpha\ndelta\n' }, context);
    expect(changeOf(overwritten)).toMatchObject({ status: 'kept', action: 'replaced' });
    expect(patchOf(overwritten)).toBe('--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,2 @@\n alpha\n-beta\n-gamma\n+delta\n');
  });

  it('a file_edit keeps its hunk with three lines of context, not the whole file', async () => {
    const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`);
    writeFileSync(join(workspace.root, 'long.txt'), `${lines.join('\n')}\n`);
    const patch = patchOf(await run(edit, { path: 'long.txt', old_string: 'line 20\n', new_string: 'line twenty\n' }, context));
    expect(patch).toBe(
      '--- a/long.txt\n+++ b/long.txt\n@@ -17,7 +17,7 @@\n line 17\n line 18\n line 19\n-line 20\n+line twenty\n line 21\n line 22\n line 23\n',
    );
  });

  it('a file_delete keeps what the file held', async () => {
    writeFileSync(join(workspace.root, 'gone.txt'), 'last words\n');
    const result = await run(remove, { path: 'gone.txt' }, context);
    expect(changeOf(result)).toMatchObject({ status: 'kept', action: 'deleted' });
    expect(patchOf(result)).toBe('--- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-last words\n');
  });

  it('a file too large, or a diff too long, is not kept and says so; the write itself is done', async () => {
    writeFileSync(join(workspace.root, 'big.txt'), 'x'.repeat(KEPT_FILE_MAX_BYTES + 1));
    const big = await run(write, { path: 'big.txt', content: 'small now\n' }, context);
    expect(changeOf(big)).toEqual({
      status: 'not_kept',
      path: 'big.txt',
      action: 'replaced',
      reason: `too large to keep: the file is over ${KEPT_FILE_MAX_BYTES / 1024} KiB.`,
    });
    // Under the file bound, but every line changed: a diff over its own bound.
    const line = 'y'.repeat(99);
    const many = Array.from({ length: Math.ceil(KEPT_PATCH_MAX_BYTES / 100) }, (_, index) => `${index} ${line}`).join('\n');
    const rewritten = await run(write, { path: 'big.txt', content: many }, context);
    expect(changeOf(rewritten)).toMatchObject({
      status: 'not_kept',
      reason: `too large to keep: the diff is over ${KEPT_PATCH_MAX_BYTES / 1024} KiB.`,
    });
  });

  it('a rewrite too different to diff line by line is kept as one hunk, every old line removed', async () => {
    const lines = (tag: string) => Array.from({ length: 500 }, (_, index) => `${tag} ${index}`);
    writeFileSync(join(workspace.root, 'table.txt'), `${lines('old').join('\n')}\n`);
    const patch = patchOf(await run(write, { path: 'table.txt', content: `${lines('new').join('\n')}\n` }, context));
    expect(patch).toBe(['--- a/table.txt', '+++ b/table.txt', '@@ -1,500 +1,500 @@', ...lines('-old'), ...lines('+new'), ''].join('\n'));
  });

  it('the file a caller may not read is not kept when it writes over it', async () => {
    writeFileSync(join(workspace.root, 'private.txt'), 'hidden\n');
    const denied = { ...context, readable: (path: string) => path !== 'private.txt' };
    const change = changeOf(await run(write, { path: 'private.txt', content: 'public\n' }, denied));
    expect(change).toMatchObject({ status: 'not_kept', action: 'replaced' });
    expect(JSON.stringify(change)).not.toContain('hidden');
  });

  it('a secret the file held is redacted in the kept diff, as in the result text, and the block is a valid message block', async () => {
    const token = 'tok-3f9a8c7e1b2d4f6a';
    writeFileSync(join(workspace.root, '.env'), `API_TOKEN=${token}\nMODE=dev\n`);
    const result = await run(write, { path: '.env', content: 'MODE=prod\n' }, context);
    expect(patchOf(result)).toContain(`-API_TOKEN=${token}`);
    if (result.status === 'paused') throw new Error('not paused');
    const block = toResultBlock('call-1', result, createRedactor({ env: { API_TOKEN: token } }));
    expect(block.fileChange?.status).toBe('kept');
    const kept = block.fileChange?.status === 'kept' ? block.fileChange.patch : '';
    expect(kept).toContain('-API_TOKEN=[redacted:API_TOKEN]');
    expect(kept).not.toContain(token);
    const message = MessageSchema.parse({ id: 'm1', role: 'user', at: '2026-12-07T00:00:00Z', content: [block] });
    expect(message.content[0]).toEqual(block);
  });
});
