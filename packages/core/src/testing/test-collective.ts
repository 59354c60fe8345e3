import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initWorkspace } from '../team/index.js';
import type { ParticipantInput, ContextOverrides } from '../team/index.js';
import { Legion } from '../Legion.js';
import { ScriptedProvider } from '../model/index.js';
import { MemorySessionBackend, MemorySessionStore, FileSessionBackend } from '../store/index.js';
import type { SessionBackend, SessionBackendOptions } from '../store/index.js';

export function userParticipant(id = 'user', extra: Partial<ParticipantInput> = {}): ParticipantInput {
  return { id, type: 'user', name: id, medium: 'test', ...extra } as ParticipantInput;
}

export function agentParticipant(
  id: string,
  extra: {
    systemPrompt?: string;
    tools?: 'all' | 'none' | string[];
    delegation?: 'all' | 'none' | string[];
    useFor?: string;
    limits?: Record<string, number>;
    /** Its context settings; scripted models are unknown to the model table, so without this they run the small profile. */
    context?: ContextOverrides;
  } = {},
): ParticipantInput {
  return {
    id,
    type: 'agent',
    name: id,
    systemPrompt: extra.systemPrompt ?? `You are ${id}.`,
    model: { provider: 'scripted', model: id },
    ...extra,
  } as ParticipantInput;
}

export function mockParticipant(
  id: string,
  responses: Array<{ trigger: string; response: string; delayMs?: number }>,
  fallback?: string,
): ParticipantInput {
  return { id, type: 'mock', name: id, responses, ...(fallback === undefined ? {} : { fallback }) } as ParticipantInput;
}

/**
 * A backend that a test run supplies for `LEGION_TEST_BACKEND=<kind>` (other than `file` and `memory`):
 * `@legion-collective/store-postgres`'s test setup registers `postgres`, so the engine's tests run on
 * a database too, without core knowing of it. `open` makes another instance on the current test's store.
 */
export interface RegisteredTestBackend {
  kind: string;
  open(options: SessionBackendOptions): SessionBackend;
}

const REGISTERED = Symbol.for('legion.test-backend');

/** Makes `createTestLegion` use this backend when LEGION_TEST_BACKEND names its kind (undefined: none). */
export function registerTestBackend(backend: RegisteredTestBackend | undefined): void {
  (globalThis as Record<symbol, unknown>)[REGISTERED] = backend;
}

function registeredTestBackend(kind: string): RegisteredTestBackend | undefined {
  const registered = (globalThis as Record<symbol, unknown>)[REGISTERED] as RegisteredTestBackend | undefined;
  return registered?.kind === kind ? registered : undefined;
}

export interface TestLegion {
  legion: Legion;
  root: string;
  /** Where its sessions are kept: `file`, `memory`, or the kind of a registered backend (`postgres`). */
  backend: 'file' | 'memory' | (string & {});
  /** One ScriptedProvider per agent that was given a script. */
  providers: Record<string, ScriptedProvider>;
  /** Fails if any script has unused steps. */
  assertScriptsDone(): void;
  /** Reopens the same workspace as a fresh process would (new Legion, same files). */
  reopen(): Legion;
  /** Another backend instance on the same store (as another process would open it); close it when done. */
  openBackend(): SessionBackend;
  /** Closes the workspace (stopping its processes and servers) and deletes it. */
  cleanup(): Promise<void>;
}

/**
 * A real workspace in a temp directory with the given participants, and a
 * ScriptedProvider per scripted agent: the whole engine, no network.
 */
export function createTestLegion(options: {
  participants: ParticipantInput[];
  scripts?: Record<string, ConstructorParameters<typeof ScriptedProvider>[0]>;
  entryAgent?: string;
  root?: string;
  /** The environment Legion reads provider keys and base URLs from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Where sessions are kept: `file` (the workspace's `.legion/sessions/`) or
   * `memory` (a `MemorySessionBackend`; each `reopen()` is another instance on
   * the same store, as another process on the same files would be). Default:
   * `LEGION_TEST_BACKEND` from the environment, else `file`.
   */
  backend?: 'file' | 'memory' | undefined;
  /** Conversation lease ttl (`Legion.open`'s `leaseTtlMs`). */
  leaseTtlMs?: number | undefined;
}): TestLegion {
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'legion-test-'));
  initWorkspace(root, { participants: options.participants, entryAgent: options.entryAgent });
  const providers: Record<string, ScriptedProvider> = {};
  for (const [id, script] of Object.entries(options.scripts ?? {})) providers[id] = new ScriptedProvider(script, id);
  const fromEnv = process.env['LEGION_TEST_BACKEND'];
  const registered = options.backend === undefined && fromEnv !== undefined ? registeredTestBackend(fromEnv) : undefined;
  const kind = options.backend ?? registered?.kind ?? (fromEnv === 'memory' ? 'memory' : 'file');
  const store = kind === 'memory' ? new MemorySessionStore() : undefined;
  const otherBackend = (onWarning?: SessionBackendOptions['onWarning']): SessionBackend | undefined =>
    store ? new MemorySessionBackend({ store, onWarning }) : registered?.open({ onWarning });
  const open = (): Legion => {
    // What the memory backend skips is told as the file backend's is: storage:warning events of this Legion.
    let opened: Legion | undefined;
    const legion = Legion.open({
      root,
      globalConfigFile: join(root, 'no-global-config.json'),
      ...(options.env ? { env: options.env } : {}),
      ...(kind !== 'file' ? { backend: otherBackend((warning) => opened?.sessions.warn(warning)) } : {}),
      ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
    });
    opened = legion;
    for (const [id, provider] of Object.entries(providers)) legion.providers.useFor(id, provider);
    return legion;
  };
  const legion = open();
  return {
    legion,
    root,
    backend: kind,
    providers,
    assertScriptsDone: () => Object.values(providers).forEach((provider) => provider.assertDone()),
    reopen: open,
    openBackend: () => otherBackend() ?? new FileSessionBackend({ root }),
    cleanup: async () => {
      await legion.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
