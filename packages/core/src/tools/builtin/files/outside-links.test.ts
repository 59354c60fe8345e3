import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '../../../Legion.js';

/**
 * Symbolic links out of the workspace: the model sees the workspace, not the machine, so no
 * listing, search or error names a host path, neither a link's text nor where it leads
 * (shown-entry.ts `linkDestination`). Through `executeTool`, as the user and as an agent.
 */
describe('links that lead out of the workspace show no host path', () => {
  let base: string;
  let root: string;
  let outside: string;
  let legion: Legion;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'legion-outside-links-')));
    root = join(base, 'workspace');
    outside = join(base, 'host-only');
    mkdirSync(join(root, '.legion'), { recursive: true });
    mkdirSync(join(root, 'docs'));
    mkdirSync(join(root, 'secret'));
    mkdirSync(outside);
    writeFileSync(join(outside, 'host-file.txt'), 'host data\n');
    writeFileSync(join(root, 'docs', 'readme.txt'), 'the docs\n');
    symlinkSync(outside, join(root, 'ext'));
    symlinkSync('../..', join(root, 'up'));
    symlinkSync('/nonexistent-host-folder/private-name', join(root, 'gone'));
    symlinkSync(join(outside, 'host-file.txt'), join(root, 'docs', 'host-file-link.txt'));
    // Into the workspace, but spelled with the host path: shown relative to the workspace root.
    symlinkSync(join(root, 'docs', 'readme.txt'), join(root, 'docs', 'absolute-inside'));
    symlinkSync('later.txt', join(root, 'docs', 'soon'));
    symlinkSync('../secret/hidden-name.txt', join(root, 'docs', 'to-denied'));
    // To nothing, spelled inside but through the link to the host folder: what is missing is the host's.
    symlinkSync('../ext/missing-host-name', join(root, 'docs', 'through-ext'));
    // To nothing in the denied folder, spelled through a link to it.
    symlinkSync('secret', join(root, 'to-secret'));
    symlinkSync('../to-secret/hidden-name.txt', join(root, 'docs', 'through-denied'));
    writeFileSync(
      join(root, '.legion', 'config.json'),
      JSON.stringify({ policies: { file_read: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } } }),
    );
    legion = Legion.create({ root, globalConfigFile: join(root, 'no-global.json'), env: { PATH: process.env.PATH } });
  });
  afterEach(async () => {
    await legion?.close();
    rmSync(base, { recursive: true, force: true });
  });

  const callers = (): Array<string | undefined> => [undefined, legion.collective.agents()[0]!.id];
  const shownNothingOfTheHost = (result: unknown): void => {
    const text = JSON.stringify(result);
    for (const hostOnly of [base, 'host-only', 'nonexistent-host-folder', 'private-name', 'hidden-name', 'missing-host-name', '../..'])
      expect(text).not.toContain(hostOnly);
  };

  it('file_list names such a link, marked as leading outside, without its text or target; a link inside shows where it leads from the root', async () => {
    for (const as of callers()) {
      const listed = await legion.executeTool('file_list', { path: '.', recursive: true }, { as });
      expect(listed.status).toBe('success');
      const lines = (listed as { content: string }).content.split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          'ext (symbolic link leading outside the workspace)',
          'up (symbolic link leading outside the workspace)',
          'gone (symbolic link leading outside the workspace)',
          'docs/host-file-link.txt (symbolic link leading outside the workspace)',
          'docs/absolute-inside -> docs/readme.txt',
          'docs/soon -> docs/later.txt (missing)',
          'docs/through-ext (symbolic link leading outside the workspace)',
        ]),
      );
      // A link to nothing in a denied folder is left out, as that folder's files are.
      expect(lines.filter((line) => line.includes('to-denied'))).toEqual([]);
      // So is one spelled through a link into that folder.
      expect(lines.filter((line) => line.includes('through-denied'))).toEqual([]);
      shownNothingOfTheHost(listed);
      shownNothingOfTheHost(await legion.executeTool('file_list', { path: 'docs' }, { as }));
    }
  });

  it('file_glob, file_grep and the errors of file_read, file_list and file_grep name no host path either', async () => {
    for (const as of callers()) {
      const glob = await legion.executeTool('file_glob', { pattern: '**/*' }, { as });
      expect(glob).toMatchObject({ status: 'success', content: expect.stringContaining('docs/readme.txt') });
      shownNothingOfTheHost(glob);
      const grep = await legion.executeTool('file_grep', { pattern: 'data|docs', path: '.' }, { as });
      expect(grep).toMatchObject({ status: 'success', content: expect.stringContaining('docs/readme.txt') });
      shownNothingOfTheHost(grep);
      for (const path of ['ext/host-file.txt', 'up', 'gone', 'docs/host-file-link.txt', 'docs/to-denied']) {
        for (const [tool, input] of [
          ['file_read', { path }],
          ['file_list', { path }],
          ['file_grep', { pattern: 'x', path }],
        ] as const) {
          const refused = await legion.executeTool(tool, input, { as });
          expect(refused.status, `${tool} ${path}`).not.toBe('success');
          shownNothingOfTheHost(refused);
        }
      }
      // A pattern through a link to a host folder tells nothing of what is there, not even by a count of matches not shown.
      const seenThrough = async (name: string): Promise<string[]> => [
        JSON.stringify(await legion.executeTool('file_glob', { pattern: `ext/${name}` }, { as })).replaceAll(name, 'NAME'),
        JSON.stringify(await legion.executeTool('file_grep', { pattern: 'data', path: '.', glob: `ext/${name}` }, { as })).replaceAll(
          name,
          'NAME',
        ),
      ];
      expect(await seenThrough('host-file.txt')).toEqual(await seenThrough('no-such-file.txt'));
      // An absolute path out of the workspace is refused without naming where the workspace is.
      const absolute = await legion.executeTool('file_read', { path: '/etc/hostname' }, { as });
      expect(absolute.status).not.toBe('success');
      shownNothingOfTheHost(absolute);
    }
  });
});
