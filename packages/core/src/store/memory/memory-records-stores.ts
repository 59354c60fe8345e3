import type { z } from 'zod';
import { assertAgentStateKey, assertAgentStateKind, assertArtifactName, assertSessionName } from '../record-names.js';
import type { AgentStateKey, AgentStateStore, ArtifactInfo, ArtifactStore } from '../session-backend.js';
import type { MemorySessionStore } from './MemorySessionStore.js';
import { readRecord } from './memory-records.js';

export class MemoryAgentState implements AgentStateStore {
  constructor(private readonly store: MemorySessionStore) {}

  async get<T>(key: AgentStateKey, schema: z.ZodType<T>): Promise<T | undefined> {
    assertAgentStateKey(key);
    const text = this.store.agentState.get(keyOf(key));
    if (text === undefined) return undefined;
    return readRecord(text, schema, `memory:sessions/${keyOf(key)}`, `${key.kind} of ${key.agentId}`);
  }

  async put(key: AgentStateKey, value: unknown): Promise<void> {
    assertAgentStateKey(key);
    this.store.agentState.set(keyOf(key), JSON.stringify(value));
  }

  async list(sessionId: string, kind: string): Promise<string[]> {
    assertSessionName(sessionId);
    assertAgentStateKind(kind);
    const prefix = `${sessionId}/${kind}/`;
    return [...this.store.agentState.keys()]
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length))
      .sort();
  }

  async kinds(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const prefix = `${sessionId}/`;
    const kinds = new Set<string>();
    for (const key of this.store.agentState.keys()) if (key.startsWith(prefix)) kinds.add(key.slice(prefix.length).split('/')[0] ?? '');
    return [...kinds].sort();
  }
}

function keyOf(key: AgentStateKey): string {
  return `${key.sessionId}/${key.kind}/${key.agentId}`;
}

export class MemoryArtifacts implements ArtifactStore {
  constructor(private readonly store: MemorySessionStore) {}

  async put(sessionId: string, name: string, content: string | Uint8Array): Promise<void> {
    assertArtifactName(sessionId, name);
    let artifacts = this.store.artifacts.get(sessionId);
    if (!artifacts) this.store.artifacts.set(sessionId, (artifacts = new Map()));
    // A copy: the caller may reuse its buffer.
    artifacts.set(name, typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'utf8')) : new Uint8Array(content));
  }

  async get(sessionId: string, name: string): Promise<Uint8Array | undefined> {
    assertArtifactName(sessionId, name);
    const bytes = this.store.artifacts.get(sessionId)?.get(name);
    return bytes === undefined ? undefined : new Uint8Array(bytes);
  }

  async getText(sessionId: string, name: string): Promise<string | undefined> {
    const bytes = await this.get(sessionId, name);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  async list(sessionId: string): Promise<ArtifactInfo[]> {
    assertSessionName(sessionId);
    return [...(this.store.artifacts.get(sessionId) ?? new Map<string, Uint8Array>())]
      .map(([name, bytes]) => ({ name, bytes: bytes.byteLength }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
