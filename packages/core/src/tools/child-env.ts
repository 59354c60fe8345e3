import { PROVIDER_PRESETS } from '../model/index.js';

/** Names that read as secrets (`LEGION_API_KEY`, `LEGION_TOKEN`): Legion's own credentials. */
const LEGION_SECRET = /^LEGION_.*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export interface CommandEnvironmentOptions {
  /** Variables passed anyway (config `shell.passEnv`). */
  passEnv?: readonly string[] | undefined;
  /** Keys Legion was configured with (the global config's `apiKey`s): a variable holding one is withheld whatever its name. */
  secretValues?: readonly string[] | undefined;
}

/**
 * The variables of `env` that hold Legion's own credentials and so are kept
 * from the commands tools run: every provider preset's API key variable
 * (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, …), `LEGION_*` secrets, and any
 * variable whose value is a configured key. A command that needs one gets it
 * through `shell.passEnv` in the workspace or global config.
 */
export function withheldVariables(env: NodeJS.ProcessEnv, options: CommandEnvironmentOptions = {}): string[] {
  const passed = new Set(options.passEnv ?? []);
  const keyVariables = new Set(Object.values(PROVIDER_PRESETS).flatMap((preset) => (preset.apiKeyEnv ? [preset.apiKeyEnv] : [])));
  const keys = new Set((options.secretValues ?? []).filter((value) => value.length > 0));
  return Object.keys(env)
    .filter((name) => !passed.has(name))
    .filter((name) => keyVariables.has(name) || LEGION_SECRET.test(name) || keys.has(env[name] ?? ''))
    .sort();
}

/**
 * The environment a command runs with: `env` without Legion's credentials
 * (see `withheldVariables`). A model that can run commands could otherwise
 * send the provider key anywhere, redacted output or not.
 */
export function commandEnvironment(env: NodeJS.ProcessEnv, options: CommandEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const withheld = new Set(withheldVariables(env, options));
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!withheld.has(name)) result[name] = value;
  return result;
}
