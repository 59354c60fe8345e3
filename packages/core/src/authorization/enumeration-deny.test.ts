import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '../Legion.js';

/**
 * A deny holds through every tool that lists, searches or reads a file, for the
 * user's direct calls and an agent's alike (entry-visibility.ts, file_edit's `readsPaths`).
 */
describe('a deny holds through listings, searches and edits', () => {
  let root: string;
  let legion: Legion;
  function open(policies: Record<string, unknown>): void {
    writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ policies }));
    legion = Legion.create({ root, globalConfigFile: join(root, 'no-global.json'), env: { PATH: process.env.PATH } });
  }
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-enumeration-deny-'));
    mkdirSync(join(root, '.legion'));
    mkdirSync(join(root, 'secret'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'secret', 'launch-codes.txt'), 'the code is 0000\n');
    writeFileSync(join(root, 'docs', 'readme.txt'), 'the code is public\n');
  });
  afterEach(async () => {
    await legion?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const callers = (): Array<string | undefined> => [undefined, legion.collective.agents()[0]!.id];

  it('file_list does not show the names of files denied to file_read, as the user or an agent, whichever folder is listed', async () => {
    open({ file_read: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } });
    for (const as of callers()) {
      for (const input of [{ path: '.', recursive: true }, { path: 'secret' }, { path: 'secret', recursive: true }]) {
        const listed = await legion.executeTool('file_list', input, { as });
        expect(listed.status).toBe('success');
        expect(JSON.stringify(listed)).not.toContain('launch-codes');
      }
      const root = await legion.executeTool('file_list', { path: '.', recursive: true }, { as });
      expect(root).toMatchObject({ status: 'success', content: expect.stringContaining('docs/readme.txt') });
    }
  });

  it("a deny on a search tool's own paths keeps a search of a parent folder out of them too", async () => {
    open({
      file_grep: { rules: [{ mode: 'deny', paths: ['secret/**'] }] },
      file_glob: { rules: [{ mode: 'deny', paths: ['secret/**'] }] },
      file_list: { rules: [{ mode: 'deny', paths: ['secret/**'] }] },
    });
    for (const as of callers()) {
      const grep = await legion.executeTool('file_grep', { pattern: 'the code', path: '.' }, { as });
      expect(grep).toMatchObject({ status: 'success', content: expect.stringContaining('docs/readme.txt') });
      expect(JSON.stringify(grep)).not.toContain('0000');
      const glob = await legion.executeTool('file_glob', { pattern: '**/*.txt' }, { as });
      expect(glob).toMatchObject({ status: 'success', content: expect.stringContaining('docs/readme.txt') });
      expect(JSON.stringify(glob)).not.toContain('launch-codes');
      const list = await legion.executeTool('file_list', { path: '.', recursive: true }, { as });
      expect(JSON.stringify(list)).not.toContain('launch-codes');
      // The rule is on the search tools only: reading is not denied.
      expect(await legion.executeTool('file_read', { path: 'secret/launch-codes.txt' }, { as })).toMatchObject({ status: 'success' });
    }
  });

  it('file_edit of a file denied to file_read is refused, and its error neither quotes nor locates the content', async () => {
    open({ file_read: { rules: [{ mode: 'deny', paths: ['secret/**'] }] }, file_write: 'auto' });
    for (const as of callers()) {
      for (const old_string of ['the code is 0000', 'not in the file', 'e']) {
        const edit = await legion.executeTool(
          'file_edit',
          { path: 'secret/launch-codes.txt', old_string, new_string: 'x' },
          { as, approved: true },
        );
        expect(edit).toMatchObject({ status: 'error', error: expect.stringContaining('file_edit is denied') });
        expect(edit.status === 'error' && edit.error).toContain('reading "secret/launch-codes.txt" is denied');
        expect(edit.status === 'error' && edit.error).not.toMatch(/line|occurs|not found/);
      }
    }
    expect(readFileSync(join(root, 'secret', 'launch-codes.txt'), 'utf8')).toBe('the code is 0000\n');
    expect(await legion.executeTool('file_edit', { path: 'docs/readme.txt', old_string: 'public', new_string: 'open' })).toMatchObject({
      status: 'success',
    });
  });

  it('an unknown "as" is refused with the participants to choose from, and runs nothing past the policies', async () => {
    open({ file_write: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } });
    const result = await legion.executeTool('file_write', { path: 'secret/launch-codes.txt', content: 'overwritten' }, { as: 'nobody' });
    expect(result).toMatchObject({ status: 'error', error: expect.stringContaining('"nobody" (as) is no participant of this collective') });
    expect(result.status === 'error' && result.error).toContain(legion.collective.agents()[0]!.id);
    expect(readFileSync(join(root, 'secret', 'launch-codes.txt'), 'utf8')).toBe('the code is 0000\n');
  });
});
