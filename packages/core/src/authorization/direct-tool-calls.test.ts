import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '../Legion.js';

/** `legion.executeTool`, the program's own door to a tool (extensions, scripts), is judged by the workspace's policies too. */
describe('a direct tool call', () => {
  let root: string;
  let legion: Legion;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-direct-call-'));
    mkdirSync(join(root, '.legion'));
    writeFileSync(
      join(root, '.legion', 'config.json'),
      JSON.stringify({ policies: { file_write: { mode: 'requires_approval', rules: [{ mode: 'deny', paths: ['secret/**'] }] } } }),
    );
    legion = Legion.create({ root, globalConfigFile: join(root, 'no-global.json'), env: { PATH: process.env.PATH } });
  });
  afterEach(async () => {
    await legion.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is refused where the policy denies, as the user and as an agent, and writes nothing', async () => {
    const agent = legion.collective.agents()[0]!.id;
    for (const as of [undefined, agent]) {
      const result = await legion.executeTool('file_write', { path: 'secret/key.txt', content: 'x' }, { as, approved: true });
      expect(result.status === 'error' && result.error).toMatch(/file_write is denied to .*Change the policy/);
    }
    expect(existsSync(join(root, 'secret', 'key.txt'))).toBe(false);
  });

  it("as an agent, runs a call that needs approval only when the program says it obtained one; the user's own call runs", async () => {
    const agent = legion.collective.agents()[0]!.id;
    const asked = await legion.executeTool('file_write', { path: 'a.txt', content: 'a' }, { as: agent });
    expect(asked.status === 'error' && asked.error).toContain(`file_write needs approval for ${agent}`);
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
    expect(await legion.executeTool('file_write', { path: 'a.txt', content: 'a' }, { as: agent, approved: true })).toMatchObject({
      status: 'success',
    });
    expect(await legion.executeTool('file_write', { path: 'b.txt', content: 'b' })).toMatchObject({ status: 'success' });
    expect(existsSync(join(root, 'b.txt'))).toBe(true);
  });

  it("as the user, a search does not show a file the workspace denies to file_read (a user's own read of anything else needs no approval)", async () => {
    writeFileSync(
      join(root, '.legion', 'config.json'),
      JSON.stringify({ policies: { file_read: { mode: 'requires_approval', rules: [{ mode: 'deny', paths: ['private/**'] }] } } }),
    );
    await legion.close();
    legion = Legion.create({ root, globalConfigFile: join(root, 'no-global.json'), env: { PATH: process.env.PATH } });
    mkdirSync(join(root, 'private'));
    writeFileSync(join(root, 'private', 'key.txt'), 'the private key');
    writeFileSync(join(root, 'public.txt'), 'the public key');
    const grep = await legion.executeTool('file_grep', { pattern: 'key' });
    expect(grep).toMatchObject({ status: 'success', content: expect.stringContaining('the public key') });
    expect(JSON.stringify(grep)).not.toContain('the private key');
    const named = await legion.executeTool('file_grep', { pattern: 'key', path: 'private/key.txt' });
    expect(JSON.stringify(named)).not.toContain('the private key');
    const glob = await legion.executeTool('file_glob', { pattern: '**/*.txt' });
    expect(glob).toMatchObject({ status: 'success', content: expect.stringContaining('public.txt') });
    expect(JSON.stringify(glob)).not.toContain('key.txt');
  });

  it('is judged on the input the tool runs with: a path left out is the default path, and a rule on that path holds', async () => {
    writeFileSync(
      join(root, '.legion', 'config.json'),
      JSON.stringify({ policies: { file_list: { mode: 'auto', rules: [{ mode: 'deny', paths: ['.'] }] } } }),
    );
    await legion.close();
    legion = Legion.create({ root, globalConfigFile: join(root, 'no-global.json'), env: { PATH: process.env.PATH } });
    writeFileSync(join(root, 'listed.txt'), 'x');
    const agent = legion.collective.agents()[0]!.id;
    for (const as of [undefined, agent]) {
      for (const input of [{ path: '.' }, {}]) {
        const result = await legion.executeTool('file_list', input, { as, approved: true });
        expect(result.status === 'error' && result.error, JSON.stringify(input)).toMatch(/file_list is denied to /);
        expect(JSON.stringify(result)).not.toContain('listed.txt');
      }
    }
  });
});
