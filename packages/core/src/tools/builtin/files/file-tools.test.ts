import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createFileDeleteTool } from './file-delete.js';
import { createFileEditTool } from './file-edit.js';
import { createFileListTool } from './file-list.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';
import { ToolResultEviction } from '../../../model/context/evict-tool-result.js';
import { countTextTokens } from '../../../model/context/text-tokens.js';
import { loadTokenCounter } from '../../../model/context/token-count.js';

const read = createFileReadTool();
const write = createFileWriteTool();
const edit = createFileEditTool();
const list = createFileListTool();
const remove = createFileDeleteTool();

describe('file tools', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  beforeEach(() => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root });
  });
  afterEach(() => workspace.cleanup());

  const file = (path: string): string => readFileSync(join(workspace.root, path), 'utf8');

  it('writes a new file with its folders, overwrites it, and reads it back numbered', async () => {
    expect(successText(await run(write, { path: 'src/app/main.ts', content: 'one\ntwo\n' }, context))).toBe(
      'Created src/app/main.ts (2 lines, 8 B).',
    );
    expect(successText(await run(write, { path: 'src/app/main.ts', content: 'a\nb\nc\n' }, context))).toMatch(
      /^Overwrote src\/app\/main\.ts \(3 lines/,
    );
    expect(successText(await run(read, { path: 'src/app/main.ts', offset: 2, limit: 1 }, context))).toBe(
      'src/app/main.ts (3 lines)\n    2  b\n(lines 2-2 of 3; read on with offset 3)',
    );
  });

  it('refuses to read binary files; a very long line is read whole and reaches the context cut, kept whole as an artifact', async () => {
    writeFileSync(join(workspace.root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(errorText(await run(read, { path: 'image.bin' }, context))).toContain('looks binary');
    const minified = Array.from({ length: 2000 }, (_, index) => `v${index}=${index * 7};`).join('');
    writeFileSync(join(workspace.root, 'min.js'), minified);
    const whole = successText(await run(read, { path: 'min.js' }, context));
    expect(whole).toBe(`min.js (1 lines)\n    1  ${minified}`);
    // What the model's context gets of it (the small profile's threshold): the line cut within a bounded preview.
    const eviction = new ToolResultEviction({
      artifacts: context.session.artifacts,
      evictAboveTokens: 700,
      artifactMaxBytes: 10 * 1024 * 1024,
      canReadArtifacts: true,
    });
    const block = await eviction.apply({ type: 'tool_result', toolUseId: 'read-1', content: whole });
    expect(block.content).toMatch(/^\[Evicted to artifact "tool-read-1\.txt"/);
    expect(countTextTokens(await loadTokenCounter(), block.content)).toBeLessThan(700);
    expect(await context.session.artifacts.getText('tool-read-1.txt')).toBe(whole);
  });

  it('returns whole lines up to its byte bound, and says where to read on', async () => {
    writeFileSync(
      join(workspace.root, 'long.txt'),
      Array.from({ length: 10 }, (_, index) => `line ${index + 1} ${'z'.repeat(20)}`).join('\n'),
    );
    const text = successText(await run(createFileReadTool({ maxBytes: 110 }), { path: 'long.txt' }, context));
    expect(text).toBe(
      `long.txt (10 lines)\n    1  line 1 ${'z'.repeat(20)}\n    2  line 2 ${'z'.repeat(20)}\n    3  line 3 ${'z'.repeat(20)}\n(lines 1-3 of 10; read on with offset 4)`,
    );
  });

  it('refuses writes that leave the workspace: .., absolute paths, a symlinked folder and a dangling symlink', async () => {
    expect(errorText(await run(write, { path: '../outside/evil.txt', content: 'x' }, context))).toContain('outside the workspace');
    expect(errorText(await run(write, { path: join(workspace.outside, 'evil.txt'), content: 'x' }, context))).toContain(
      'outside the workspace',
    );
    symlinkSync(workspace.outside, join(workspace.root, 'out'));
    expect(errorText(await run(write, { path: 'out/evil.txt', content: 'x' }, context))).toContain('symbolic link');
    symlinkSync(join(workspace.outside, 'created-through-link.txt'), join(workspace.root, 'dangling'));
    expect(errorText(await run(write, { path: 'dangling', content: 'x' }, context))).toContain('symbolic link');
    expect(existsSync(join(workspace.outside, 'evil.txt'))).toBe(false);
    expect(existsSync(join(workspace.outside, 'created-through-link.txt'))).toBe(false);
    writeFileSync(join(workspace.outside, 'secret.txt'), 'top secret');
    symlinkSync(join(workspace.outside, 'secret.txt'), join(workspace.root, 'secret-link'));
    expect(errorText(await run(read, { path: 'secret-link' }, context))).toContain('symbolic link');
    expect(errorText(await run(edit, { path: 'secret-link', old_string: 'top', new_string: 'no' }, context))).toContain('symbolic link');
    expect(errorText(await run(remove, { path: 'secret-link' }, context))).toContain('symbolic link');
    expect(readFileSync(join(workspace.outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('reads .legion/ but never writes, edits or deletes it', async () => {
    mkdirSync(join(workspace.root, '.legion', 'collective', 'participants'), { recursive: true });
    writeFileSync(join(workspace.root, '.legion', 'collective', 'participants', 'dev.json'), '{"id":"dev"}\n');
    expect(successText(await run(read, { path: '.legion/collective/participants/dev.json' }, context))).toContain('{"id":"dev"}');
    expect(errorText(await run(write, { path: '.legion/collective/participants/dev.json', content: '{}' }, context))).toContain('.legion/');
    expect(errorText(await run(write, { path: '.legion/tools/new.json', content: '{}' }, context))).toContain('.legion/');
    expect(
      errorText(await run(edit, { path: '.legion/collective/participants/dev.json', old_string: 'dev', new_string: 'x' }, context)),
    ).toContain('.legion/');
    expect(errorText(await run(remove, { path: '.legion', recursive: true }, context))).toContain('.legion/');
    expect(errorText(await run(remove, { path: '.', recursive: true }, context))).toContain('workspace root');
    expect(file('.legion/collective/participants/dev.json')).toBe('{"id":"dev"}\n');
  });

  it('edits one exact occurrence, refuses missing or ambiguous ones, and replaces all on request', async () => {
    writeFileSync(join(workspace.root, 'a.ts'), 'const a = 1;\nconst b = 1;\nconst c = 2;\n');
    expect(successText(await run(edit, { path: 'a.ts', old_string: 'c = 2', new_string: 'c = "$&"' }, context))).toBe(
      'Edited a.ts: 1 replacement (first at line 3).',
    );
    expect(file('a.ts')).toContain('const c = "$&";');
    expect(errorText(await run(edit, { path: 'a.ts', old_string: 'const d', new_string: 'x' }, context))).toContain('not found');
    expect(errorText(await run(edit, { path: 'a.ts', old_string: '= 1;', new_string: '= 3;' }, context))).toBe(
      'old_string occurs 2 times in a.ts (lines 1, 2). Include more surrounding text to make it unique, or set replace_all.',
    );
    expect(successText(await run(edit, { path: 'a.ts', old_string: '= 1;', new_string: '= 3;', replace_all: true }, context))).toContain(
      '2 replacements',
    );
    expect(file('a.ts')).toBe('const a = 3;\nconst b = 3;\nconst c = "$&";\n');
    expect(errorText(await run(edit, { path: 'missing.ts', old_string: 'a', new_string: 'b' }, context))).toBe(
      '"missing.ts" does not exist.',
    );
  });

  it('deletes files, links (not their targets) and folders, the non-empty ones only when recursive', async () => {
    mkdirSync(join(workspace.root, 'build', 'deep'), { recursive: true });
    writeFileSync(join(workspace.root, 'build', 'deep', 'out.js'), '');
    writeFileSync(join(workspace.root, 'keep.txt'), 'kept');
    symlinkSync('keep.txt', join(workspace.root, 'keep-link'));
    expect(successText(await run(remove, { path: 'keep-link' }, context))).toBe('Deleted keep-link.');
    expect(existsSync(join(workspace.root, 'keep-link'))).toBe(false);
    expect(file('keep.txt')).toBe('kept');
    expect(errorText(await run(remove, { path: 'build' }, context))).toContain('set recursive');
    expect(successText(await run(remove, { path: 'build', recursive: true }, context))).toBe('Deleted folder build/ and its contents.');
    expect(existsSync(join(workspace.root, 'build'))).toBe(false);
    expect(errorText(await run(remove, { path: 'build' }, context))).toBe('"build" does not exist.');
  });

  it('lists a folder, recursively with node_modules unexpanded, and stops at the cap', async () => {
    mkdirSync(join(workspace.root, 'src', 'lib'), { recursive: true });
    mkdirSync(join(workspace.root, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(workspace.root, 'src', 'index.ts'), 'x'.repeat(2048));
    writeFileSync(join(workspace.root, 'src', 'lib', 'util.ts'), '');
    symlinkSync('src', join(workspace.root, 'source'));
    expect(successText(await run(list, {}, context))).toBe('./ (4 entries)\n.legion/\nnode_modules/\nsource -> src\nsrc/');
    expect(successText(await run(list, { recursive: true }, context))).toBe(
      './ (7 entries)\n.legion/\nnode_modules/ (not expanded)\nsource -> src\nsrc/\nsrc/index.ts  2.0 KB\nsrc/lib/\nsrc/lib/util.ts  0 B',
    );
    const capped = successText(await run(list, { recursive: true, max_entries: 5 }, context));
    expect(capped).toContain('(5+ entries)');
    expect(capped).toContain('stopped at 5 entries');
    expect(errorText(await run(list, { path: 'src/index.ts' }, context))).toContain('is a file');
  });

  it('needs a workspace', async () => {
    expect(errorText(await run(write, { path: 'a', content: '' }, toolContext({ root: undefined })))).toContain('No workspace');
  });
});
