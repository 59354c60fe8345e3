import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeSessionBackendContract, type SessionBackendHarness } from '../../../testing/session-backend-contract.js';
import { WorkspacePaths } from '../../workspace-paths.js';
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
