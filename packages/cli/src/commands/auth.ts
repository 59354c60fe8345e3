import { LegionError, PROVIDER_PRESETS } from '@legion-collective/core';
import { globalConfigPath, inspectConfigLayers, saveConfigLayer, type ConfigLayerReport } from '@legion-collective/core/management';
import { columns } from '../render/columns.js';
import { styleFor } from '../render/style.js';
import { stderr, stdout } from '../render/terminal-text.js';
import { readSecret, readStandardInput } from '../secret-input.js';

interface AuthOptions {
  stdin?: boolean;
  json?: boolean;
}

/**
 * `legion auth set PROVIDER`: stores a provider's API key in the global config (never the
 * workspace's, which is meant for git), written only its owner may read (0600). The key is typed
 * at a prompt that shows nothing, or read from standard input (`--stdin`, or when it is no
 * terminal): never an argument, which would land in the shell's history and the process list.
 */
export async function authSetCommand(provider: string, options: AuthOptions): Promise<number> {
  const global = globalLayer();
  requireProvider(provider, global);
  const key = options.stdin || !process.stdin.isTTY ? await readStandardInput() : await readSecret(`API key for ${provider} (not shown): `);
  storeKey(provider, key);
  return 0;
}

/** Saves a key typed or piped for `provider` in the global config and says where; refuses an empty or multi-word one. */
export function storeKey(provider: string, key: string | null): void {
  if (key === null || key === '') throw new LegionError('usage', 'No key given: nothing was saved.');
  if (/\s/.test(key)) throw new LegionError('usage', 'That key has spaces or several lines in it: nothing was saved. Give the key alone.');
  const global = globalLayer();
  const layer = global.layer ?? {};
  const providers = { ...layer.providers, [provider]: { ...layer.providers?.[provider], apiKey: key } };
  saveConfigLayer({ source: 'global', file: global.file }, { ...layer, providers });
  stdout.write(`Saved the key for ${provider} (${mask(key)}) in ${global.file} (readable only by you).\n`);
  const variable = PROVIDER_PRESETS[provider]?.apiKeyEnv;
  if (variable && process.env[variable]) stderr.write(`note: ${variable} is also set; the key in the global config is the one used.\n`);
}

/** `legion auth rm PROVIDER`: removes the provider's key from the global config (its other settings stay). */
export async function authRemoveCommand(provider: string): Promise<number> {
  const global = globalLayer();
  const settings = global.layer?.providers?.[provider];
  if (settings?.apiKey === undefined) {
    stdout.write(`No key for ${provider} in ${global.file}: nothing to remove.\n`);
    return 0;
  }
  const { apiKey: _removed, ...rest } = settings;
  const providers = { ...global.layer?.providers };
  if (Object.keys(rest).length > 0) providers[provider] = rest;
  else delete providers[provider];
  const { providers: _old, ...others } = global.layer ?? {};
  saveConfigLayer({ source: 'global', file: global.file }, Object.keys(providers).length > 0 ? { ...others, providers } : others);
  stdout.write(`Removed the key for ${provider} from ${global.file}.\n`);
  const variable = PROVIDER_PRESETS[provider]?.apiKeyEnv;
  if (variable && process.env[variable]) stderr.write(`note: ${variable} is still set in the environment; calls use it.\n`);
  return 0;
}

/** `legion auth list`: each provider and where its key comes from (the global config, the environment), masked. */
export async function authListCommand(options: AuthOptions): Promise<number> {
  const global = globalLayer();
  const names = [...new Set([...Object.keys(PROVIDER_PRESETS), ...Object.keys(global.layer?.providers ?? {})])];
  const rows = names.map((name) => {
    const variable = PROVIDER_PRESETS[name]?.apiKeyEnv;
    const fromConfig = global.layer?.providers?.[name]?.apiKey;
    const fromEnvironment = variable ? process.env[variable] || undefined : undefined;
    const source =
      fromConfig !== undefined
        ? { from: 'global-config' as const, file: global.file, masked: mask(fromConfig) }
        : fromEnvironment !== undefined
          ? { from: 'environment' as const, variable: variable!, masked: mask(fromEnvironment) }
          : { from: PROVIDER_PRESETS[name]?.requiresKey === false ? ('none-needed' as const) : ('missing' as const) };
    return { provider: name, ...source, ...(fromConfig !== undefined && fromEnvironment !== undefined ? { shadows: variable } : {}) };
  });
  if (options.json) {
    stdout.json({ globalConfig: global.file, providers: rows });
    return 0;
  }
  const style = styleFor(process.stdout);
  stdout.write(
    `${columns(
      rows.map((row) => [
        row.provider,
        row.from === 'global-config'
          ? `${row.masked}  ${style.dim(`global config${row.shadows ? ` (over ${row.shadows})` : ''}`)}`
          : row.from === 'environment'
            ? `${row.masked}  ${style.dim(row.variable)}`
            : row.from === 'none-needed'
              ? style.dim('no key needed (local server)')
              : style.yellow('no key'),
      ]),
    )}\n`,
  );
  stdout.write(style.dim(`\nKeys saved with "legion auth set PROVIDER" go to ${global.file}.\n`));
  return 0;
}

/** The first and last few characters, so that a person can tell keys apart without the key being shown. */
export function mask(key: string): string {
  if (key.length < 12) return '…';
  return `${key.slice(0, 4)}…${key.slice(-4)}`;
}

function globalLayer(): ConfigLayerReport {
  const [global] = inspectConfigLayers({ globalConfigFile: globalConfigPath() });
  if (!global) throw new Error('inspectConfigLayers returned no global layer');
  // A broken global config is not overwritten by a key: it is fixed first.
  if (global.error) throw global.error;
  return global;
}

function requireProvider(provider: string, global: ConfigLayerReport): void {
  const known = [...new Set([...Object.keys(PROVIDER_PRESETS), ...Object.keys(global.layer?.providers ?? {})])];
  if (!known.includes(provider))
    throw new LegionError('usage', `No provider "${provider}". Providers: ${known.join(', ')} (see legion models).`, { provider });
}
