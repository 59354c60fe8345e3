import { existsSync } from 'node:fs';
import { ConfigError, errorMessage } from '../../kernel/index.js';
import { parseJsonText, readJsonFile, writeTextAtomic, WorkspacePaths } from '../../store/index.js';
import { ConfigLayerSchema, DEFAULT_CONFIG, type ConfigLayer, type ResolvedConfig } from './config-schema.js';
import { globalConfigPath, mergeConfig } from './load-config.js';
import { rejectWorkspaceSecrets, secretsInConfig } from './config-secrets.js';

/** One config file as found on disk: absent, valid (its `layer`), or broken (its `error`). */
export interface ConfigLayerReport {
  source: 'global' | 'workspace';
  file: string;
  exists: boolean;
  layer?: ConfigLayer;
  /** Names the file, the field and the fix. */
  error?: ConfigError;
}

/**
 * Each config file on its own, lowest precedence first (global, then
 * workspace), without stopping at the first broken one: what `legion doctor`
 * and `legion config show --layers` report. Loading a workspace
 * (`Legion.open`) still fails on the first error.
 */
export function inspectConfigLayers(options: {
  workspaceConfigFile?: string;
  globalConfigFile?: string;
  env?: NodeJS.ProcessEnv;
}): ConfigLayerReport[] {
  const globalFile = options.globalConfigFile ?? globalConfigPath(options.env);
  const reports = [inspect('global', globalFile, globalFile)];
  if (options.workspaceConfigFile) reports.push(inspect('workspace', options.workspaceConfigFile, globalFile));
  return reports;
}

function inspect(source: ConfigLayerReport['source'], file: string, globalFile: string): ConfigLayerReport {
  if (!existsSync(file)) return { source, file, exists: false };
  try {
    const layer = readJsonFile(file, ConfigLayerSchema, { what: source === 'global' ? 'global Legion config' : 'workspace config' });
    if (source === 'workspace') rejectWorkspaceSecrets(layer, file, globalFile);
    return { source, file, exists: true, layer };
  } catch (error) {
    if (error instanceof ConfigError) return { source, file, exists: true, error };
    return {
      source,
      file,
      exists: true,
      error: new ConfigError({
        file,
        field: '',
        problem: `could not be read (${errorMessage(error)})`,
        fix: 'check that the file is readable',
      }),
    };
  }
}

/** The effective config of valid layers (lowest precedence first) over the built-in defaults, merged as `Legion.open` merges them. */
export function resolveConfigLayers(layers: readonly ConfigLayer[]): ResolvedConfig {
  return mergeConfig(DEFAULT_CONFIG, layers);
}

/** `.legion/config.json` of the workspace at `root`. */
export function workspaceConfigPath(root: string): string {
  return new WorkspacePaths(root).configFile;
}

/**
 * Validates a whole config layer and writes it atomically to its file. The
 * workspace config (meant for git) takes no secret: a key, token or password
 * written into it is refused with the global file named as the place for it.
 * A mistake throws a `ConfigError` naming the file and the field, and writes nothing.
 */
export function saveConfigLayer(
  target: { source: ConfigLayerReport['source']; file: string },
  layer: unknown,
  options: { globalConfigFile?: string; env?: NodeJS.ProcessEnv } = {},
): ConfigLayer {
  const text = `${JSON.stringify(layer, null, 2)}\n`;
  const what = target.source === 'global' ? 'global Legion config' : 'workspace config';
  const parsed = parseJsonText(text, ConfigLayerSchema, { what, file: target.file });
  if (target.source === 'workspace') {
    const globalFile = options.globalConfigFile ?? globalConfigPath(options.env);
    // What loading refuses is refused here first: a file this writes always loads.
    rejectWorkspaceSecrets(parsed, target.file, globalFile);
    const [secret] = secretsInConfig(parsed);
    if (secret !== undefined) {
      throw new ConfigError({
        file: target.file,
        field: secret,
        problem: 'secrets (keys, tokens, passwords) are not allowed in the workspace config, which is meant to be committed',
        fix: `put it in the global config, ${globalFile} ("legion config set ${secret} VALUE --global")${secret.startsWith('mcpServers.') ? ', or write "${env:NAME}" so the value comes from the environment' : ''}`,
      });
    }
  }
  // The global config holds keys: only its owner may read it.
  writeTextAtomic(target.file, text, { ownerOnly: target.source === 'global' });
  return parsed;
}
