import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeSessionBackendContract, type SessionBackendHarness } from '../../testing/session-backend-contract.js';
import { appendUnderLease } from '../../testing/append-under-lease.js';
import { WorkspacePaths } from '../fs/workspace-paths.js';
import type { StorageWarning } from '../session-backend.js';
import { FileSessionBackend } from './FileSessionBackend.js';

const CHILD = fileURLToPath(new URL('./__fixtures__/backend-child.mjs', import.meta.url));

/**
 * Runs a command of backend-child.mjs in each of several processes, released at once when all are
 * ready, and returns what each printed after that.
 */
async function inChildrenAtOnce(commands: string[][]): Promise<string[]> {
  const children = commands.map((args) => spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const outputs = children.map(() => '');
  const ready = children.map(
    (child, index) =>
      new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          outputs[index] += chunk.toString();
          if (outputs[index]?.startsWith('READY\n')) resolve();
        });
      }),
  );
  const exited = children.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  await Promise.all(ready);
  for (const child of children) child.stdin.end('go\n');
  await Promise.all(exited);
  return outputs.map((output) => output.slice('READY\n'.length).trim());
}

/** Runs one command of backend-child.mjs in its own process and returns what it printed. */
async function inChild(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, ...args], { encoding: 'utf8' });
  return stdout.trim();
}

/** Takes a lease in a real child process and SIGKILLs it: a holder that died, detected by its pid. */
async function abandonInChild(root: string, command: 'hold-lease' | 'hold-file-claim', args: readonly string[]): Promise<void> {
  const child = spawn(process.execPath, [CHILD, command, root, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('HELD')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`backend-child.mjs exited (${code}) before holding what it holds: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describeSessionBackendContract('FileSessionBackend', async (): Promise<SessionBackendHarness> => {
  const root = mkdtempSync(join(tmpdir(), 'legion-file-backend-'));
  const paths = new WorkspacePaths(root);
  return {
    open: (options) => new FileSessionBackend({ root, ...options }),
    abandonLease: (address, owner) => abandonInChild(root, 'hold-lease', [address.sessionId, address.conversationId, owner]),
    abandonFileClaim: (claim) => abandonInChild(root, 'hold-file-claim', [JSON.stringify(claim)]),
    breakSession: async (sessionId) => writeFileSync(paths.sessionFile(sessionId), '{ "version": 1, "id": '),
    breakConversation: async (address) =>
      appendFileSync(paths.conversationFile(address.sessionId, address.conversationId), '{"kind":"message","id":"broken"}\n'),
    storeRecord: async (sessionId, log, record) => appendFileSync(paths.recordLogFile(sessionId, log), `${JSON.stringify(record)}\n`),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
});

describe('FileSessionBackend, file specifics', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-file-backend-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('follows appends another process makes', async () => {
    const backend = new FileSessionBackend({ root });
    const { id: sessionId } = await backend.sessions.create();
    const address = { sessionId, conversationId: 'user__dev' };
    const start = await backend.conversations.end(address);
    expect(await inChild('append', root, sessionId, 'user__dev', '3')).toBe('DONE');
    const read = await backend.conversations.readSince(address, start);
    expect(read.messages.map((message) => message.content)).toEqual(
      [0, 1, 2].map((index) => [{ type: 'text', text: `from child ${index}` }]),
    );
    expect(await inChild('append', root, sessionId, 'user__dev', '1')).toBe('DONE');
    expect((await backend.conversations.readSince(address, read.cursor)).messages).toHaveLength(1);
    await backend.close();
  });

  it("syncs a turn's log to the disk off the event loop: the process goes on while the disk works", async () => {
    const backend = new FileSessionBackend({ root, fsync: 'turn' });
    const { id: sessionId } = await backend.sessions.create();
    const address = { sessionId, conversationId: 'user__dev' };
    await appendUnderLease(backend, address, {
      kind: 'message',
      id: 'm1',
      role: 'user',
      content: [{ type: 'text', text: 'kept' }],
      at: 'x',
    });
    let loopRan = false;
    setImmediate(() => (loopRan = true));
    await backend.conversations.flush(address);
    // A synchronous fsync resolves the flush before the loop turns once.
    expect(loopRan).toBe(true);
    expect((await backend.conversations.readSince(address, undefined)).messages.map((message) => message.id)).toEqual(['m1']);
    await backend.close();
  });

  it('lets one of several processes deciding at once win', async () => {
    const backend = new FileSessionBackend({ root });
    const { id: sessionId } = await backend.sessions.create();
    await backend.approvals.append(sessionId, {
      kind: 'request',
      version: 2,
      id: 'apr_1',
      at: 'x',
      batchId: 'b',
      requester: 'dev',
      approver: 'user',
      tool: 'file_write',
      input: {},
      toolUseId: 't1',
      conversationId: 'user__dev',
      reason: 'r',
      frames: [{ participantId: 'user', conversationId: 'user__dev' }],
    });
    const outputs = await inChildrenAtOnce(['a', 'b', 'c', 'd'].map((who) => ['decide', root, sessionId, 'apr_1', who]));
    const winners = outputs.flatMap((output, index) => (output === 'WON' ? [['a', 'b', 'c', 'd'][index]] : []));
    expect(winners).toHaveLength(1);
    expect(outputs.filter((output) => output !== 'WON')).toEqual(Array(3).fill(`LOST ${winners[0]}`));
    expect(
      (await backend.approvals.read(sessionId))
        .filter((record) => record.kind === 'decision')
        .map((record) => record.kind === 'decision' && record.decidedBy),
    ).toEqual(winners);
    await backend.close();
  });

  it('gives processes starting at once on an empty workspace one first session', async () => {
    const ids = await inChildrenAtOnce(Array.from({ length: 4 }, () => ['first-session', root]));
    expect(new Set(ids).size).toBe(1);
    expect((await new FileSessionBackend({ root }).sessions.list()).sessions.map((session) => session.id)).toEqual([ids[0]]);
  });

  it('does not show a torn last line to readers, and the next lease holder cuts it before appending', async () => {
    const paths = new WorkspacePaths(root);
    const warnings: StorageWarning[] = [];
    const backend = new FileSessionBackend({ root, onWarning: (warning) => warnings.push(warning) });
    const { id: sessionId } = await backend.sessions.create();
    const address = { sessionId, conversationId: 'user__dev' };
    const first = await backend.conversations.acquire(address, 'first turn', { ttlMs: 60_000 });
    if (!first.acquired) throw new Error('the first turn got no lease');
    await backend.conversations.append(
      address,
      { kind: 'message', id: 'm1', role: 'user', content: [{ type: 'text', text: 'whole' }], at: 'x' },
      first.lease,
    );
    await first.lease.release();
    const start = await backend.conversations.end(address);
    // A writer that died mid-line.
    appendFileSync(paths.conversationFile(sessionId, 'user__dev'), '{"kind":"message","id":"m2","role":"user","content":[{"ty');
    expect((await backend.conversations.context(address)).messages.map((message) => message.id)).toEqual(['m1']);
    expect((await backend.conversations.readSince(address, start)).messages).toEqual([]);
    const result = await backend.conversations.acquire(address, 'next turn', { ttlMs: 60_000 });
    if (!result.acquired) throw new Error('the next turn got no lease');
    expect(warnings.some((warning) => warning.problem.includes('cut a torn last line'))).toBe(true);
    await backend.conversations.append(
      address,
      { kind: 'message', id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'after' }], at: 'y' },
      result.lease,
    );
    expect((await backend.conversations.readSince(address, start)).messages.map((message) => message.id)).toEqual(['m3']);
    expect((await backend.conversations.recent(address, 5)).map((message) => message.id)).toEqual(['m1', 'm3']);
    await backend.close();
  });
});
