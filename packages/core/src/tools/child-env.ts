import { PROVIDER_PRESETS } from '../providers/provider-presets.js';
import type { NamedSecret } from './redact.js';

/**
 * The environment a command an agent runs gets: Legion's own, less the keys
 * Legion holds for its model providers (every provider's key variable, any
 * variable whose value is a key from Legion's configuration, `LEGION_*`
 * secrets) — a command has no business with them, and a hostile one would
 * send them away. Variables named in `shell.passEnv` are passed all the same.
 */
export function commandEnvironment(env: NodeJS.ProcessEnv, options: { passEnv?: readonly string[]; secrets?: readonly NamedSecret[] } = {}): NodeJS.ProcessEnv {
  const pass = new Set(options.passEnv ?? []);
  const keyVariables = new Set(Object.values(PROVIDER_PRESETS).flatMap((preset) => (preset.apiKeyEnv ? [preset.apiKeyEnv] : [])));
  const secretValues = new Set((options.secrets ?? []).map((secret) => secret.value));
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const held = keyVariables.has(name) || secretValues.has(value) || (/^LEGION_/.test(name) && /KEY|TOKEN|SECRET|PASSWORD/i.test(name));
    if (!held || pass.has(name)) result[name] = value;
  }
  return result;
}
