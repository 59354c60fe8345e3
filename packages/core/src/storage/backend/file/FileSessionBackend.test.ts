import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeSessionBackendContract, type SessionBackendHarness } from '../../../testing/session-backend-contract.js';
import { WorkspacePaths } from '../../workspace-paths.js';
import type { StorageWarning } from '../session-backend.js';
import { FileSessionBackend } from './FileSessionBackend.js';

const HOLD_LEASE = fileURLToPath(new URL('./__fixtures__/hold-lease.mjs', import.meta.url));

/** Takes a lease in a real child process and SIGKILLs it: a holder that died, detected by its pid. */
async function abandonInChild(root: string, sessionId: string, conversationId: string, owner: string): Promise<void> {
  const child = spawn(process.execPath, [HOLD_LEASE, root, sessionId, conversationId, owner], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('HELD')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`hold-lease.mjs exited (${code}) before holding the lease: ${stderr}`)));
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
    abandonLease: (address, owner) => abandonInChild(root, address.sessionId, address.conversationId, owner),
    breakSession: async (sessionId) => writeFileSync(paths.sessionFile(sessionId), '{ "version": 1, "id": '),
    breakConversation: async (address) => appendFileSync(paths.conversationFile(address.sessionId, address.conversationId), '{"kind":"message","id":"broken"}\n'),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
});

describe('FileSessionBackend, file specifics', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-file-backend-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('does not show a torn last line to readers, and the next lease holder cuts it before appending', async () => {
    const paths = new WorkspacePaths(root);
    const warnings: StorageWarning[] = [];
    const backend = new FileSessionBackend({ root, onWarning: (warning) => warnings.push(warning) });
    const { id: sessionId } = await backend.sessions.create();
    const address = { sessionId, conversationId: 'user__dev' };
    await backend.conversations.append(address, { kind: 'message', id: 'm1', role: 'user', content: [{ type: 'text', text: 'whole' }], at: 'x' });
    const start = await backend.conversations.end(address);
    // A writer that died mid-line.
    appendFileSync(paths.conversationFile(sessionId, 'user__dev'), '{"kind":"message","id":"m2","role":"user","content":[{"ty');
    expect((await backend.conversations.context(address)).messages.map((message) => message.id)).toEqual(['m1']);
    expect((await backend.conversations.readSince(address, start)).messages).toEqual([]);
    const result = await backend.conversations.acquire(address, 'next turn', { ttlMs: 60_000 });
    expect(result.acquired).toBe(true);
    expect(warnings.some((warning) => warning.problem.includes('cut a torn last line'))).toBe(true);
    await backend.conversations.append(address, { kind: 'message', id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'after' }], at: 'y' });
    expect((await backend.conversations.readSince(address, start)).messages.map((message) => message.id)).toEqual(['m3']);
    expect((await backend.conversations.recent(address, 5)).map((message) => message.id)).toEqual(['m1', 'm3']);
    await backend.close();
  });
});
