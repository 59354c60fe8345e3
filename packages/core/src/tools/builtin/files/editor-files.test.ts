import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EditorFiles } from '../../../session/index.js';
import { MAX_READ_BYTES } from '../../../store/index.js';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createFileEditTool } from './file-edit.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';

const read = createFileReadTool();
const write = createFileWriteTool();
const edit = createFileEditTool();

/** An editor as the port sees one: open buffers by absolute path; a read of any other file has nothing to give. */
function editor(buffers: Map<string, string>, offers: { reads?: boolean; writes?: boolean } = {}) {
  const asked: string[] = [];
  const files: EditorFiles = {
    ...(offers.reads !== false
      ? {
          readText: async (path: string) => {
            asked.push(`read ${path}`);
            return buffers.get(path);
          },
        }
      : {}),
    ...(offers.writes !== false
      ? {
          writeText: async (path: string, text: string) => {
            asked.push(`write ${path}`);
            if (path.endsWith('.readonly')) throw new Error('the buffer is read-only');
            buffers.set(path, text);
          },
        }
      : {}),
  };
  return { files, asked };
}

describe('file tools through an editor (EditorFiles)', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    workspace = tempWorkspace();
  });
  afterEach(() => workspace.cleanup());
  const at = (path: string): string => join(workspace.root, path);
  const contextWith = (files: EditorFiles) => ({ ...toolContext({ root: workspace.root }), editorFiles: files });

  it('file_read shows the open buffer, and the disk for a file the editor has not open', async () => {
    writeFileSync(at('open.txt'), 'disk\n');
    writeFileSync(at('closed.txt'), 'closed on disk\n');
    const { files } = editor(new Map([[at('open.txt'), 'buffer one\nbuffer two\n']]));
    const context = contextWith(files);
    expect(successText(await run(read, { path: 'open.txt', offset: 2 }, context))).toBe('open.txt (2 lines)\n    2  buffer two');
    expect(successText(await run(read, { path: 'closed.txt' }, context))).toBe('closed.txt (1 lines)\n    1  closed on disk');
  });

  it('an editor whose read throws is read past: the disk answers', async () => {
    writeFileSync(at('a.txt'), 'disk\n');
    const context = contextWith({
      readText: async () => {
        throw new Error('connection closed');
      },
    });
    expect(successText(await run(read, { path: 'a.txt' }, context))).toContain('1  disk');
  });

  it('bounds what the editor returns as a disk read is bounded', async () => {
    const { files } = editor(new Map([[at('huge.txt'), 'x'.repeat(MAX_READ_BYTES + 1)]]));
    expect(errorText(await run(read, { path: 'huge.txt' }, contextWith(files)))).toMatch(/more than the .* file tools read at once/);
  });

  it('refuses paths outside the workspace and in .legion/ before the editor is asked', async () => {
    const { files, asked } = editor(new Map());
    const context = contextWith(files);
    expect(errorText(await run(read, { path: '../outside/x.txt' }, context))).toContain('outside the workspace');
    expect(errorText(await run(write, { path: '../outside/x.txt', content: 'x' }, context))).toContain('outside the workspace');
    expect(errorText(await run(write, { path: '.legion/config.json', content: '{}' }, context))).toContain('.legion/');
    expect(errorText(await run(edit, { path: '.legion/config.json', old_string: 'a', new_string: 'b' }, context))).toContain('.legion/');
    expect(asked).toEqual([]);
  });

  it('file_write and file_edit go to the editor, not the disk; the edit is made on the unsaved buffer', async () => {
    writeFileSync(at('draft.md'), 'draft on disk\n');
    const buffers = new Map([[at('draft.md'), 'an unsaved draft\n']]);
    const { files } = editor(buffers);
    const context = contextWith(files);
    expect(successText(await run(write, { path: 'src/new.txt', content: 'one\n' }, context))).toBe('Created src/new.txt (1 lines, 4 B).');
    expect(successText(await run(edit, { path: 'draft.md', old_string: 'unsaved', new_string: 'edited' }, context))).toBe(
      'Edited draft.md: 1 replacement (first at line 1).',
    );
    expect(buffers.get(at('src/new.txt'))).toBe('one\n');
    expect(buffers.get(at('draft.md'))).toBe('an edited draft\n');
    expect(existsSync(at('src'))).toBe(false);
    expect(readFileSync(at('draft.md'), 'utf8')).toBe('draft on disk\n');
    // The edit's checks read the buffer: what only the disk has is not found.
    expect(errorText(await run(edit, { path: 'draft.md', old_string: 'on disk', new_string: 'x' }, context))).toContain('was not found');
  });

  it('a write the editor refuses is an error, and the disk is not written behind its back', async () => {
    const { files } = editor(new Map());
    expect(errorText(await run(write, { path: 'a.readonly', content: 'x' }, contextWith(files)))).toBe(
      'The editor did not write "a.readonly": the buffer is read-only. Nothing was changed.',
    );
    expect(existsSync(at('a.readonly'))).toBe(false);
  });

  it('an editor that only reads: writes and edits go to the disk, as without an editor', async () => {
    writeFileSync(at('a.txt'), 'disk text\n');
    const { files, asked } = editor(new Map([[at('a.txt'), 'buffer text\n']]), { writes: false });
    const context = contextWith(files);
    expect(successText(await run(write, { path: 'b.txt', content: 'b\n' }, context))).toMatch(/^Created b\.txt/);
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b\n');
    // Without a way to write the buffer, the edit is the disk's (one descriptor for read and write, as before).
    expect(successText(await run(edit, { path: 'a.txt', old_string: 'disk', new_string: 'new' }, context))).toMatch(/^Edited a\.txt/);
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('new text\n');
    expect(asked).toEqual([]);
  });
});
