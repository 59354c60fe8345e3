import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Collective } from '../collective/Collective.js';
import { errorMessage, LegionError } from '../../kernel/index.js';
import type { WorkspacePaths } from '../../store/index.js';
import type { ResolvedConfig } from './config-schema.js';
import { loadConfig } from './load-config.js';

/** What a look at the workspace's config files found. */
export type ConfigCheck =
  | { status: 'unchanged' }
  | { status: 'changed'; config: ResolvedConfig; collective: Collective }
  /** `problem` names the file and the fix; reported once per edit: the same broken files give `unchanged` until they change again. */
  | { status: 'invalid'; problem: string };

/**
 * Watches the files a workspace's config is made of (the global config, `.legion/config.json`
 * and the participant files) by their sizes and modification times, so that a process that stays
 * open (the REPL, `legion serve`) takes an edit from its next message. A look costs a `stat` per
 * file and a directory listing; the files are read and parsed only when one of them changed.
 */
export class ConfigWatch {
  private stamp: string;

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly options: { globalConfigFile?: string | undefined; env?: NodeJS.ProcessEnv | undefined; globalFile: string },
  ) {
    this.stamp = this.currentStamp();
  }

  /** Reads the files again if any changed since the last look; a broken edit is reported and the last good config stays. */
  check(): ConfigCheck {
    const stamp = this.currentStamp();
    if (stamp === this.stamp) return { status: 'unchanged' };
    // Taken before reading, not after: an edit made while reading is seen at the next look.
    this.stamp = stamp;
    try {
      const { config } = loadConfig({
        workspaceConfigFile: this.paths.configFile,
        globalConfigFile: this.options.globalConfigFile,
        env: this.options.env,
      });
      return { status: 'changed', config, collective: Collective.load(this.paths) };
    } catch (error) {
      return { status: 'invalid', problem: error instanceof LegionError ? error.message : errorMessage(error) };
    }
  }

  /** Size and modification time of every file the config is read from: equal stamps mean nothing to reread. */
  private currentStamp(): string {
    const files = [this.options.globalFile, this.paths.configFile];
    try {
      for (const entry of readdirSync(this.paths.participantsDir).sort())
        if (entry.endsWith('.json')) files.push(join(this.paths.participantsDir, entry));
    } catch {
      // No participants directory: nothing to stamp there (loading says what is wrong, if anything).
    }
    return files.map((file) => `${file}:${stampOf(file)}`).join('\n');
  }
}

function stampOf(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    // Nanoseconds and the inode: an atomic rewrite (a rename) within the same millisecond still shows.
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return 'absent';
  }
}

/**
 * The dotted keys whose values differ between two configs (or participants), down to `depth`
 * levels: `defaultModel`, `limits.maxTurns`, `providers.openai.apiKey`. Names only, never values,
 * so that a changed key can be said without showing it.
 */
export function changedKeys(before: unknown, after: unknown, depth = 3, prefix = ''): string[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (depth === 0 || !isRecord(before) || !isRecord(after)) return [prefix];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((key) => changedKeys(before[key], after[key], depth - 1, prefix ? `${prefix}.${key}` : key));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
