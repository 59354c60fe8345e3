import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempWorkspace } from '../../tools/builtin/__fixtures__/tool-context.js';
import { resolveInWorkspace, resolveWritableInWorkspace } from './workspace-path.js';

describe('resolveInWorkspace', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => (workspace = tempWorkspace()));
  afterEach(() => workspace.cleanup());

  it('resolves paths inside, including absolute ones and files that do not exist yet', () => {
    expect(resolveInWorkspace(workspace.root, 'src/new.ts')).toMatchObject({
      ok: true,
      relative: join('src', 'new.ts'),
      real: join(workspace.root, 'src', 'new.ts'),
    });
    expect(resolveInWorkspace(workspace.root, join(workspace.root, 'a.txt'))).toMatchObject({ ok: true, relative: 'a.txt' });
    expect(resolveInWorkspace(workspace.root, 'src/../b.txt')).toMatchObject({ ok: true, relative: 'b.txt' });
  });

  it('refuses .., absolute paths elsewhere, and symlinks that lead out (dangling and looping ones too)', () => {
    expect(resolveInWorkspace(workspace.root, '../outside/x')).toMatchObject({
      ok: false,
      error: expect.stringContaining('outside the workspace'),
    });
    expect(resolveInWorkspace(workspace.root, '/etc/passwd')).toMatchObject({ ok: false });
    symlinkSync(workspace.outside, join(workspace.root, 'escape'));
    expect(resolveInWorkspace(workspace.root, 'escape/new.txt')).toMatchObject({
      ok: false,
      error: expect.stringContaining('symbolic link'),
    });
    symlinkSync(join(workspace.outside, 'not-yet.txt'), join(workspace.root, 'dangling'));
    expect(resolveInWorkspace(workspace.root, 'dangling')).toMatchObject({ ok: false, error: expect.stringContaining('symbolic link') });
    symlinkSync('loop-b', join(workspace.root, 'loop-a'));
    symlinkSync('loop-a', join(workspace.root, 'loop-b'));
    expect(resolveInWorkspace(workspace.root, 'loop-a/file')).toMatchObject({ ok: false, error: expect.stringContaining('loop') });
  });

  it('accepts symlinks that stay inside', () => {
    mkdirSync(join(workspace.root, 'real'));
    symlinkSync('real', join(workspace.root, 'alias'));
    expect(resolveInWorkspace(workspace.root, 'alias/file.txt')).toMatchObject({
      ok: true,
      real: join(workspace.root, 'real', 'file.txt'),
    });
  });
});

describe('resolveWritableInWorkspace', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => (workspace = tempWorkspace()));
  afterEach(() => workspace.cleanup());

  it('refuses the root and .legion/, also when reached through a link inside the workspace', () => {
    expect(resolveWritableInWorkspace(workspace.root, '.')).toMatchObject({ ok: false, error: expect.stringContaining('workspace root') });
    expect(resolveWritableInWorkspace(workspace.root, '.legion/config.json')).toMatchObject({
      ok: false,
      error: expect.stringContaining('.legion/'),
    });
    expect(resolveWritableInWorkspace(workspace.root, 'src/../.legion')).toMatchObject({ ok: false });
    writeFileSync(join(workspace.root, '.legion', 'config.json'), '{}');
    symlinkSync('.legion/config.json', join(workspace.root, 'config-link'));
    expect(resolveWritableInWorkspace(workspace.root, 'config-link')).toMatchObject({
      ok: false,
      error: expect.stringContaining('.legion/'),
    });
    expect(resolveWritableInWorkspace(workspace.root, 'notes/.legion-not-really.md')).toMatchObject({ ok: true });
  });
});
