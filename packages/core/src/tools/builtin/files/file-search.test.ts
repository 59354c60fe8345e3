import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createFileGlobTool } from './file-glob.js';
import { createFileGrepTool } from './file-grep.js';

const glob = createFileGlobTool();
const grep = createFileGrepTool();

describe('file_glob and file_grep', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  const put = (path: string, content: string | Buffer): void => {
    const absolute = join(workspace.root, path);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  };

  beforeEach(() => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root });
    put('src/index.ts', 'export function loadConfig() {}\n// TODO: cache\n');
    put('src/lib/util.ts', 'export const answer = 42;\nfunction helper() {}\n');
    put('src/readme.md', 'TODO write docs\n');
    put('node_modules/pkg/index.ts', 'export function loadConfig() {}\n');
    put('.github/workflows/ci.yml', 'name: ci # TODO\n');
    put('.legion/config.json', '{"TODO": true}\n');
    put('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x54, 0x4f, 0x44, 0x4f]));
    writeFileSync(join(workspace.outside, 'leak.ts'), 'export function loadConfig() { return "outside secret" }\n');
    symlinkSync(workspace.outside, join(workspace.root, 'linked-dir'));
    symlinkSync(join(workspace.outside, 'leak.ts'), join(workspace.root, 'src', 'leak-link.ts'));
  });
  afterEach(() => workspace.cleanup());

  it('globs files, sorted, skipping node_modules, dot-folders unless named, and symbolic links', async () => {
    expect(successText(await run(glob, { pattern: '**/*.ts' }, context))).toBe('2 files match "**/*.ts":\nsrc/index.ts\nsrc/lib/util.ts');
    expect(successText(await run(glob, { pattern: '*.ts', path: 'src/lib' }, context))).toBe('1 file matches "*.ts":\nsrc/lib/util.ts');
    expect(successText(await run(glob, { pattern: '.github/**' }, context))).toContain('.github/workflows/ci.yml');
    expect(successText(await run(glob, { pattern: '**/*.rs' }, context))).toBe('No files match "**/*.rs" in ./.');
    const capped = successText(await run(glob, { pattern: '**/*', max_results: 2 }, context));
    expect(capped).toContain('2 more not shown');
  });

  it('refuses glob patterns and folders that leave the workspace', async () => {
    expect(errorText(await run(glob, { pattern: '../outside/*' }, context))).toContain('climbs out');
    expect(errorText(await run(glob, { pattern: '{..,src}/*.ts' }, context))).toContain('climbs out');
    expect(errorText(await run(glob, { pattern: join(workspace.outside, '*') }, context))).toContain('absolute');
    expect(errorText(await run(glob, { pattern: '*', path: 'linked-dir' }, context))).toContain('symbolic link');
  });

  it('greps by regex with path:line results, a file glob, case folding and a cap', async () => {
    expect(successText(await run(grep, { pattern: 'TODO' }, context))).toBe(
      '2 matching lines in 2 files (1 binary, oversized or unreadable file skipped):\nsrc/index.ts:2: // TODO: cache\nsrc/readme.md:1: TODO write docs',
    );
    expect(successText(await run(grep, { pattern: 'function\\s+\\w+\\(', glob: '**/*.ts' }, context))).toBe(
      '2 matching lines in 2 files:\nsrc/index.ts:1: export function loadConfig() {}\nsrc/lib/util.ts:2: function helper() {}',
    );
    expect(successText(await run(grep, { pattern: 'todo', ignore_case: true, path: 'src/readme.md' }, context))).toBe(
      '1 matching line in 1 file:\nsrc/readme.md:1: TODO write docs',
    );
    expect(successText(await run(grep, { pattern: 'TODO', path: '.legion/config.json' }, context))).toContain('.legion/config.json:1:');
    const capped = successText(await run(grep, { pattern: '.', glob: 'src/**', max_matches: 1 }, context));
    expect(capped).toContain('stopped at 1 matches');
    expect(successText(await run(grep, { pattern: 'nothing-like-this' }, context))).toMatch(/^No matches/);
    expect(errorText(await run(grep, { pattern: '([a-z' }, context))).toContain('Invalid regular expression');
  });

  it('never reads through symbolic links that lead outside', async () => {
    const text = successText(await run(grep, { pattern: 'loadConfig|outside secret' }, context));
    expect(text).not.toContain('outside secret');
    expect(text).toContain('src/index.ts:1:');
    expect(errorText(await run(grep, { pattern: 'secret', path: 'src/leak-link.ts' }, context))).toContain('symbolic link');
    expect(errorText(await run(grep, { pattern: 'secret', path: 'linked-dir' }, context))).toContain('symbolic link');
  });
});
