import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParticipantInput } from '../../../team/collective/participant.js';
import { toolResultsOf } from '../../../kernel/message.js';
import type { ModelRequest } from '../../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import { createFileWriteTool } from './file-write.js';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';

const lastResults = (request: ModelRequest): string[] => toolResultsOf(request.messages.at(-1)!).map((result) => result.content);

describe('searches show only what reading may', () => {
  let test: TestLegion | undefined;
  const cleanups: Array<() => void> = [];
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    cleanups.splice(0).forEach((cleanup) => cleanup());
  });

  it("in an agent's turn, file_list hides what reading is denied, and a search tool's own path deny holds for a search of a parent folder", async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('worker', { tools: ['file_list', 'file_grep', 'file_glob'] }),
          policies: {
            file_read: { rules: [{ mode: 'deny', paths: ['private/**'] }] },
            file_grep: { rules: [{ mode: 'deny', paths: ['vault/**'] }] },
            file_glob: { rules: [{ mode: 'deny', paths: ['vault/**'] }] },
          },
        } as ParticipantInput,
      ],
      scripts: {
        worker: [
          {
            toolCalls: [
              { id: 'l1', name: 'file_list', input: { path: '.', recursive: true } },
              { id: 'l2', name: 'file_list', input: { path: 'private' } },
              { id: 'g1', name: 'file_grep', input: { pattern: 'TOKEN', path: '.' } },
              { id: 'g2', name: 'file_glob', input: { pattern: '**/*.txt' } },
            ],
          },
          {
            expect: (request) => {
              const [listRoot, listPrivate, grep, glob] = lastResults(request);
              expect(listRoot).toContain('notes.txt');
              expect(listRoot).not.toContain('salaries');
              expect(listPrivate).not.toContain('salaries');
              expect(grep).toContain('notes.txt:1: TOKEN visible');
              expect(grep).not.toContain('hunter2');
              expect(glob).toContain('notes.txt');
              expect(glob).not.toContain('vault/');
            },
            text: 'done',
          },
        ],
      },
    });
    mkdirSync(join(test.root, 'private'));
    mkdirSync(join(test.root, 'vault'));
    writeFileSync(join(test.root, 'private', 'salaries.txt'), 'TOKEN private');
    writeFileSync(join(test.root, 'vault', 'key.txt'), 'TOKEN=hunter2');
    writeFileSync(join(test.root, 'notes.txt'), 'TOKEN visible');
    const result = await test.legion.send(await test.legion.sessions.create(), 'look around', { to: 'worker' });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', reply: 'done' });
    test.assertScriptsDone();
  });

  it('file_grep skips files whose read is denied, file_glob lists nothing through a link out of the workspace', async () => {
    const scratch = tempWorkspace();
    cleanups.push(scratch.cleanup);
    const outside = scratch.outside;
    writeFileSync(join(outside, 'payroll-2026.xlsx'), 'TOKEN outside');
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('worker', { tools: ['file_grep', 'file_glob', 'file_read'] }),
          policies: { file_read: { rules: [{ mode: 'deny', paths: ['secret/**', '**/.env'] }] } },
        } as ParticipantInput,
      ],
      scripts: {
        worker: [
          {
            toolCalls: [
              { id: 'g1', name: 'file_grep', input: { pattern: 'TOKEN' } },
              { id: 'g2', name: 'file_glob', input: { pattern: 'ext/*' } },
              { id: 'g3', name: 'file_glob', input: { pattern: '**/*.txt' } },
              { id: 'g4', name: 'file_grep', input: { pattern: 'TOKEN', path: 'secret/key.txt' } },
              { id: 'g5', name: 'file_grep', input: { pattern: 'TOKEN', path: 'ext' } },
            ],
          },
          {
            expect: (request) => {
              const [grep, globLink, globTxt, grepSecret, grepLink] = lastResults(request);
              expect(grep).toContain('notes.txt:1: TOKEN visible');
              expect(grep).not.toContain('hunter2');
              expect(grep).not.toContain('.env');
              expect(grep).toContain('1 file not searched: reading it is not allowed here');
              expect(globLink).not.toContain('payroll');
              expect(globLink).toContain('No files match');
              expect(globTxt).toContain('notes.txt');
              expect(globTxt).not.toContain('secret/key.txt');
              expect(grepSecret).toContain('not allowed');
              expect(grepSecret).not.toContain('hunter2');
              expect(grepLink).toContain('outside the workspace');
            },
            text: 'done',
          },
        ],
      },
    });
    mkdirSync(join(test.root, 'secret'));
    writeFileSync(join(test.root, 'secret', 'key.txt'), 'TOKEN=hunter2');
    writeFileSync(join(test.root, '.env'), 'TOKEN=hunter2');
    writeFileSync(join(test.root, 'notes.txt'), 'TOKEN visible');
    symlinkSync(outside, join(test.root, 'ext'));
    const result = await test.legion.send(await test.legion.sessions.create(), 'find the token', { to: 'worker' });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', reply: 'done' });
    test.assertScriptsDone();
  });

  it("file_grep runs a model's catastrophic pattern in linear time instead of freezing Legion", () => {
    const workspace = tempWorkspace();
    try {
      writeFileSync(join(workspace.root, 'input.txt'), `${'a'.repeat(48)}!\n`);
      // In its own process with a bound: a backtracking engine would block that process's event loop for days.
      const child = spawnSync(
        process.execPath,
        [fileURLToPath(new URL('./__fixtures__/grep-once.mjs', import.meta.url)), workspace.root, '(a+)+$'],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(child.signal).toBeNull();
      expect(JSON.parse(child.stdout)).toMatchObject({ status: 'success', data: expect.stringContaining('No matches') });
      const backreference = spawnSync(
        process.execPath,
        [fileURLToPath(new URL('./__fixtures__/grep-once.mjs', import.meta.url)), workspace.root, '(a)\\1'],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(JSON.parse(backreference.stdout)).toMatchObject({ status: 'error', error: expect.stringContaining('no backreferences') });
    } finally {
      workspace.cleanup();
    }
  });
});

describe('writes cannot be redirected by a link swapped in after the check', () => {
  it('no write lands outside while another process flips a folder between a real one and a link out', async () => {
    const workspace = tempWorkspace();
    const inside = join(workspace.root, 'real');
    mkdirSync(inside);
    symlinkSync(inside, join(workspace.root, 'dir'));
    // A tight loop in another process: `dir` atomically becomes a link inside, then a link outside, and so on.
    const flipper = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); const [dir, a, b] = process.argv.slice(1); let i = 0;
       process.stdout.write('ready\\n');
       for (;;) { const tmp = dir + '.tmp' + (i % 2); try { fs.unlinkSync(tmp) } catch {} fs.symlinkSync(i++ % 2 ? a : b, tmp); fs.renameSync(tmp, dir); }`,
      join(workspace.root, 'dir'),
      inside,
      workspace.outside,
    ]);
    await new Promise((resolve) => flipper.stdout.once('data', resolve));
    const write = createFileWriteTool();
    const context = toolContext({ root: workspace.root });
    let written = 0;
    let refused = 0;
    try {
      for (let index = 0; index < 400; index++) {
        const result = await run(write, { path: `dir/file-${index}.txt`, content: `secret ${index}` }, context);
        if (result.status === 'success') written++;
        else refused++;
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    const landedOutside = readdirSync(workspace.outside).filter((name) => name.startsWith('file-'));
    try {
      expect(landedOutside).toEqual([]);
      expect(written + refused).toBe(400);
      // Every write reported as done is really inside.
      for (let index = 0; index < 400; index++) {
        const path = join(inside, `file-${index}.txt`);
        if (existsSync(path)) expect(readFileSync(path, 'utf8')).toBe(`secret ${index}`);
      }
    } finally {
      workspace.cleanup();
    }
  });

  it('a refused write says what happened and names the fix', async () => {
    const workspace = tempWorkspace();
    try {
      symlinkSync(workspace.outside, join(workspace.root, 'out'));
      const error = errorText(await run(createFileWriteTool(), { path: 'out/x.txt', content: 'x' }, toolContext({ root: workspace.root })));
      expect(error).toContain('outside the workspace');
      expect(
        successText(await run(createFileWriteTool(), { path: 'in/x.txt', content: 'x' }, toolContext({ root: workspace.root }))),
      ).toContain('Created in/x.txt');
    } finally {
      workspace.cleanup();
    }
  });
});
