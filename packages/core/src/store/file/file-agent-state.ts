import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../fs/atomic-json.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { assertAgentStateKey, assertAgentStateKind, assertSessionName, isAgentStateKind, isNamePart } from '../record-names.js';
import type { AgentStateKey, AgentStateStore } from '../session-backend.js';

/** `sessions/<id>/<kind>/<agent>.json` — `todos/` and `scratchbook/` as the tools have always written them. */
export class FileAgentState implements AgentStateStore {
  constructor(private readonly paths: WorkspacePaths) {}

  async get<T>(key: AgentStateKey, schema: z.ZodType<T>): Promise<T | undefined> {
    const path = this.path(key);
    if (!existsSync(path)) return undefined;
    return readJsonFile(path, schema, { what: `${key.kind} file of ${key.agentId}`, displayPath: this.paths.display(path) });
  }

  async put(key: AgentStateKey, value: unknown): Promise<void> {
    writeJsonAtomic(this.path(key), value);
  }

  async list(sessionId: string, kind: string): Promise<string[]> {
    assertSessionName(sessionId);
    assertAgentStateKind(kind);
    if (!isNamePart(kind)) return [];
    const dir = join(this.paths.sessionDir(sessionId), kind);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((entry) => entry.endsWith('.json'))
      .map((entry) => entry.slice(0, -'.json'.length))
      .filter(isNamePart)
      .sort();
  }

  async kinds(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const dir = this.paths.sessionDir(sessionId);
    if (!existsSync(dir)) return [];
    const kinds: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && isAgentStateKind(entry.name) && (await this.list(sessionId, entry.name)).length > 0)
        kinds.push(entry.name);
    }
    return kinds.sort();
  }

  private path(key: AgentStateKey): string {
    assertAgentStateKey(key);
    return join(this.paths.sessionDir(key.sessionId), key.kind, `${key.agentId}.json`);
  }
}
