import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createFileDeleteTool } from './file-delete.js';
import { createFileEditTool } from './file-edit.js';
import { createFileGlobTool } from './file-glob.js';
import { createFileGrepTool } from './file-grep.js';
import { createFileListTool } from './file-list.js';
import { createFileReadTool } from './file-read.js';
import { createFileWriteTool } from './file-write.js';

const read = createFileReadTool();
const write = createFileWriteTool();
const edit = createFileEditTool();
const list = createFileListTool();
const grep = createFileGrepTool();
const glob = createFileGlobTool();
const remove = createFileDeleteTool();

/** Whether this machine lets the tests make device nodes (root, or CAP_MKNOD): only then can a device lie inside a workspace. */
const canMknod = ((): boolean => {
  const dir = mkdtempSync(join(tmpdir(), 'legion-mknod-'));
  try {
    return spawnSync('mknod', [join(dir, 'null'), 'c', '1', '3']).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

describe('file tools on FIFOs, sockets and devices: refused at once, the process never blocks', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  const children: ChildProcess[] = [];
  const servers: Server[] = [];
  beforeEach(() => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    workspace.cleanup();
  });

  const at = (path: string): string => join(workspace.root, path);

  /** A real FIFO, made by mkfifo (node cannot make one). */
  function mkfifo(path: string): void {
    const made = spawnSync('mkfifo', [at(path)]);
    expect(made.status, made.stderr.toString()).toBe(0);
  }

  /**
   * A FIFO at `path` (made anew) and a process that writes `text` into it once
   * someone opens it for reading. Code that opens the FIFO in a blocking way
   * then gets `text` instead of hanging the test forever (no test timeout can
   * fire while the event loop is blocked), so such code fails an assertion
   * rather than freezing the run; code that refuses the FIFO never opens it,
   * and the writer waits until it is killed.
   */
  function fifoWithWriter(path: string, text = 'a from the writer x\n'): ChildProcess {
    if (existsSync(at(path))) unlinkSync(at(path));
    mkfifo(path);
    // Its text from a file, not from our stdin pipe: a blocked event loop could not feed that pipe.
    const input = join(workspace.outside, `writer-${children.length}.txt`);
    writeFileSync(input, text);
    // dd with nocreat: a writer that starts late, after its FIFO was replaced, must not create a regular file there.
    const writer = spawn('dd', [`if=${input}`, `of=${at(path)}`, 'conv=nocreat,notrunc', 'status=none'], { stdio: 'ignore' });
    children.push(writer);
    return writer;
  }

  /** Every tool that opens a file's content, on `path`: each must answer with an error naming `kind`. */
  async function expectRefusedByEveryTool(path: string, kind: string, before: () => void = () => {}): Promise<void> {
    const call = async (tool: typeof read, input: Record<string, unknown>): Promise<string> => {
      before();
      return errorText(await run(tool, input, context));
    };
    const results = {
      read: await call(read, { path }),
      write: await call(write, { path, content: 'overwritten' }),
      edit: await call(edit, { path, old_string: 'a', new_string: 'b' }),
      grep: await call(grep, { pattern: 'x', path }),
      list: await call(list, { path }),
    };
    expect(results.read).toBe(`"${path}" is ${kind}, not a regular file; file tools read only regular files.`);
    expect(results.write).toBe(`"${path}" is ${kind}, not a regular file; file tools change only regular files.`);
    expect(results.edit).toBe(`"${path}" is ${kind}, not a regular file; file tools read only regular files.`);
    expect(results.grep).toBe(`"${path}" is ${kind}, not a regular file; file_grep searches only regular files.`);
    expect(results.list).toBe(`"${path}" is ${kind}, not a folder.`);
  }

  it('a FIFO: every file tool refuses it without opening it, and the event loop goes on (a timer set before the calls fires)', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await expectRefusedByEveryTool('pipe.txt', 'a FIFO (named pipe)', () => fifoWithWriter('pipe.txt'));
      await expect.poll(() => ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
    // The last writer still waits for a reader: file_list did not open its FIFO either.
    expect(children.at(-1)!.exitCode).toBeNull();
  });

  it('a symbolic link to a FIFO inside the workspace is refused the same way', async () => {
    symlinkSync('pipe', at('link.txt'));
    await expectRefusedByEveryTool('link.txt', 'a FIFO (named pipe)', () => fifoWithWriter('pipe'));
  });

  it('a Unix socket is refused by name, not as an unexplained ENXIO', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(at('agent.sock'), resolve));
    await expectRefusedByEveryTool('agent.sock', 'a socket');
  });

  it('searches and listings of a folder holding a FIFO and a socket skip them, and name them in a listing', async () => {
    mkdirSync(at('src'));
    writeFileSync(at('src/notes.txt'), 'needle here\n');
    fifoWithWriter('src/pipe.txt', 'needle from the pipe\n');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(at('src/agent.sock'), resolve));

    expect(successText(await run(grep, { pattern: 'needle', path: '.' }, context))).toBe(
      '1 matching line in 1 file:\nsrc/notes.txt:1: needle here',
    );
    expect(successText(await run(glob, { pattern: '**/*' }, context))).toBe('1 file matches "**/*":\nsrc/notes.txt');
    expect(successText(await run(list, { path: 'src' }, context))).toBe(
      'src/ (3 entries)\nagent.sock  [a socket]\nnotes.txt  12 B\npipe.txt  [a FIFO (named pipe)]',
    );
    // Deleting one removes the entry, as for any file.
    expect(successText(await run(remove, { path: 'src/pipe.txt' }, context))).toBe('Deleted src/pipe.txt.');
    expect(existsSync(at('src/pipe.txt'))).toBe(false);
  });

  it('symbolic links to /dev/zero and /dev/tty inside the workspace are refused: they lead outside it', async () => {
    symlinkSync('/dev/zero', at('zero.txt'));
    symlinkSync('/dev/tty', at('tty.txt'));
    for (const path of ['zero.txt', 'tty.txt']) {
      expect(errorText(await run(read, { path }, context))).toBe(`"${path}" leads outside the workspace through a symbolic link.`);
      expect(errorText(await run(write, { path, content: 'x' }, context))).toBe(
        `"${path}" leads outside the workspace through a symbolic link.`,
      );
      expect(errorText(await run(edit, { path, old_string: 'a', new_string: 'b' }, context))).toBe(
        `"${path}" leads outside the workspace through a symbolic link.`,
      );
      expect(errorText(await run(grep, { pattern: 'x', path }, context))).toBe(
        `"${path}" leads outside the workspace through a symbolic link.`,
      );
    }
  });

  it.runIf(canMknod)(
    'device nodes inside the workspace (/dev/null, /dev/zero, /dev/tty made there with mknod) are refused without being read',
    async () => {
      for (const [name, major, minor] of [
        ['null.txt', '1', '3'],
        ['zero.txt', '1', '5'],
        ['tty.txt', '5', '0'],
      ] as const) {
        expect(spawnSync('mknod', [at(name), 'c', major, minor]).status).toBe(0);
        await expectRefusedByEveryTool(name, 'a character device');
      }
    },
  );

  it('a file larger than what is read at once is refused by its size, without reading it (a sparse 100 GB file)', async () => {
    const fd = openSync(at('huge.log'), 'w');
    ftruncateSync(fd, 100 * 1024 ** 3);
    closeSync(fd);
    expect(errorText(await run(read, { path: 'huge.log' }, context))).toBe(
      `"huge.log" is 100.0 GB, more than the 64.0 MB file tools read at once; read parts of it with a shell command (e.g. sed -n '1,200p') if you have one.`,
    );
    expect(errorText(await run(edit, { path: 'huge.log', old_string: 'a', new_string: 'b' }, context))).toMatch(
      /^"huge\.log" is 100\.0 GB, more than the 64\.0 MB file tools read at once/,
    );
    expect(successText(await run(grep, { pattern: 'x', path: 'huge.log' }, context))).toBe(
      'No matches for /x/ in 1 file (1 binary, oversized or unreadable file skipped).',
    );
  });
});
