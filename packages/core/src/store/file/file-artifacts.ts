import { existsSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readRegularFileSync } from '../fs/regular-file.js';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { assertArtifactName, assertSessionName } from '../record-names.js';
import type { ArtifactInfo, ArtifactStore } from '../session-backend.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `sessions/<id>/artifacts/<name>`: one file per artifact, replaced whole. */
export class FileArtifacts implements ArtifactStore {
  constructor(private readonly paths: WorkspacePaths) {}

  async put(sessionId: string, name: string, content: string | Uint8Array): Promise<void> {
    assertArtifactName(sessionId, name);
    const dir = this.paths.artifactsDir(sessionId);
    mkdirSync(dir, { recursive: true });
    // A dot-name is never an artifact name, so a reader listing the folder never sees a half-written one.
    const temp = join(dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
    writeFileSync(temp, content, { flag: 'wx' });
    try {
      renameSync(temp, join(dir, name));
    } catch (error) {
      unlinkSync(temp);
      throw error;
    }
  }

  async get(sessionId: string, name: string): Promise<Uint8Array | undefined> {
    assertArtifactName(sessionId, name);
    try {
      // As large as it was stored (artifacts have their own bound), but never a FIFO or device put in its place.
      return new Uint8Array(readRegularFileSync(join(this.paths.artifactsDir(sessionId), name), { maxBytes: Number.MAX_SAFE_INTEGER }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async getText(sessionId: string, name: string): Promise<string | undefined> {
    const bytes = await this.get(sessionId, name);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  async list(sessionId: string): Promise<ArtifactInfo[]> {
    assertSessionName(sessionId);
    const dir = this.paths.artifactsDir(sessionId);
    if (!existsSync(dir)) return [];
    const artifacts: ArtifactInfo[] = [];
    for (const name of readdirSync(dir).sort()) {
      if (!NAME.test(name)) continue;
      try {
        const stat = statSync(join(dir, name));
        if (stat.isFile()) artifacts.push({ name, bytes: stat.size });
      } catch {
        // removed meanwhile
      }
    }
    return artifacts;
  }
}
