import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolContext } from '../__fixtures__/tool-context.js';
import { createWorkspaceToolProvider } from './WorkspaceToolProvider.js';
import type { WorkspaceTool } from './workspace-tool.js';

let root: string;
let outside: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-argv-'));
  outside = mkdtempSync(join(tmpdir(), 'legion-argv-outside-'));
  const git = (...args: string[]): void => {
    execFileSync('git', args, {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    });
  };
  git('init', '-q', '-b', 'main');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'first commit');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** Writes `.legion/tools/<name>.json` and loads it the way Legion does. */
function toolFile(name: string, parameters: Record<string, unknown>, command: string[]): WorkspaceTool {
  const directory = join(root, '.legion', 'tools');
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, `${name}.json`),
    JSON.stringify({
      name,
      description: 'git log',
      parameters: { type: 'object', properties: parameters },
      execution: { type: 'shell', command },
    }),
  );
  const provider = createWorkspaceToolProvider({
    directory,
    workspaceRoot: root,
    env: { PATH: process.env.PATH, GIT_PAGER: 'cat' },
    watch: false,
  });
  const tool = provider.getTools().find((candidate) => candidate.name === name);
  expect(provider.problems).toEqual([]);
  return tool!;
}

const run = (tool: WorkspaceTool, input: Record<string, unknown>): ReturnType<WorkspaceTool['execute']> =>
  tool.execute(input, toolContext({ workspaceRoot: root }));

describe('a model value that would become an option of the program', () => {
  it('is refused with a tool error, and the program never runs (git log --output=FILE writes nothing)', async () => {
    const gitLog = toolFile('git_log', { ref: { type: 'string' } }, ['git', 'log', '--oneline', '${ref}']);
    const target = join(outside, 'written-by-git.txt');
    const result = await run(gitLog, { ref: `--output=${target}` });
    expect(result).toMatchObject({ status: 'error', error: expect.stringContaining('"ref" is') });
    expect((result as { error: string }).error).toContain('starts with "-"');
    expect(existsSync(target)).toBe(false);
    expect(await run(gitLog, { ref: 'main' })).toMatchObject({ status: 'success', data: expect.stringContaining('first commit') });
  });

  it('is refused where the placeholder starts a larger element or is spread from an array', async () => {
    const range = toolFile('git_range', { from: { type: 'string' } }, ['git', 'log', '${from}..main']);
    expect(await run(range, { from: `--output=${join(outside, 'x')}` })).toMatchObject({ status: 'error' });
    const paths = toolFile('git_paths', { paths: { type: 'array', items: { type: 'string' } } }, ['git', 'log', '${paths}']);
    expect(await run(paths, { paths: ['a.txt', `--output=${join(outside, 'y')}`] })).toMatchObject({
      status: 'error',
      error: expect.stringContaining('"paths"'),
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('is passed after a literal "--", where git reads paths, not options', async () => {
    const gitLog = toolFile('git_log_path', { path: { type: 'string' } }, ['git', 'log', '--oneline', '--', '${path}']);
    // A path that happens to look like an option: git looks for that file and finds no commits.
    expect(await run(gitLog, { path: `--output=${join(outside, 'z')}` })).toMatchObject({ status: 'success' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('is passed when the tool file allows it: allowOptionLike, or values it lists itself', async () => {
    const flagged = toolFile('git_log_flag', { format: { type: 'string', allowOptionLike: true } }, ['git', 'log', '${format}']);
    expect(await run(flagged, { format: '--oneline' })).toMatchObject({
      status: 'success',
      data: expect.stringMatching(/^[0-9a-f]+ first commit/),
    });
    expect(flagged.parameters).toEqual({ type: 'object', properties: { format: { type: 'string' } } });
    const listed = toolFile('git_log_enum', { style: { enum: ['--oneline', '--stat'] } }, ['git', 'log', '${style}']);
    expect(await run(listed, { style: '--oneline' })).toMatchObject({ status: 'success' });
  });

  it('is fine behind a literal prefix, where it cannot start an option', async () => {
    const pretty = toolFile('git_log_pretty', { format: { type: 'string' } }, ['git', 'log', '--pretty=format:${format}']);
    expect(await run(pretty, { format: '-%s-' })).toMatchObject({ status: 'success', data: '-first commit-' });
  });
});
