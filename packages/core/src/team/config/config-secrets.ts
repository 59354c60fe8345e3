import { ConfigError } from '../../kernel/index.js';
import type { ConfigLayer } from './config-schema.js';

/**
 * Config fields that hold secrets: `apiKey`, `authToken`, `clientSecret`,
 * `password`, env entries such as `GITHUB_TOKEN`. Anchored at the end so that
 * `apiKeyEnv` (the name of a variable) or `tokenizer` are not taken for one.
 */
export const SECRET_FIELD = /(?:key|token|secret|password|passwd|credentials?)$|^authorization$/i;

/** Config maps keyed by a tool's or a model's name, not by a field: `"vault_read_secret": "requires_approval"` holds no secret. */
export const NAME_KEYED_SECTIONS: ReadonlySet<string> = new Set(['policies', 'pricing']);

/** A value made only of `${env:NAME}` references (and text around them) names a variable, not a secret. */
const ENV_REFERENCE = /\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Dotted paths of the secrets written into a config layer: every string under
 * a secret-named field (`providers.openai.apiKey`, `mcpServers.github.env.GITHUB_TOKEN`,
 * `mcpServers.api.headers.Authorization`) that does not take its value from the
 * environment with `${env:NAME}`. The workspace config is meant for git: none belongs there.
 */
export function secretsInConfig(layer: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown, path: string, field: string): void => {
    if (typeof value === 'string') {
      if (SECRET_FIELD.test(field) && !ENV_REFERENCE.test(value)) found.push(path);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}[${index}]`, field));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value))
        if (path || !NAME_KEYED_SECTIONS.has(key)) visit(item, path ? `${path}.${key}` : key, key);
    }
  };
  visit(layer, '', '');
  return found;
}

/** Workspace config is meant for git; a key there would leak. */
export function rejectWorkspaceSecrets(layer: ConfigLayer, file: string, globalFile: string): void {
  if (layer.storage?.url !== undefined && databaseUrlHasPassword(layer.storage.url)) {
    throw new ConfigError({
      file,
      field: 'storage.url',
      problem: 'a database URL with a password is not allowed in the workspace config, which is meant to be committed',
      fix: `remove the password from it and give it through PGPASSWORD or ~/.pgpass, or put the whole URL under "storage.url" in ${globalFile} or in LEGION_DATABASE_URL`,
    });
  }
  if (layer.remoteAgents !== undefined) {
    // Not only secrets: a workspace (or a model writing in it) must not choose where the user's credentials go.
    throw new ConfigError({
      file,
      field: 'remoteAgents',
      problem: 'headers for remote agents are not allowed in the workspace config: a workspace must not send your credentials anywhere',
      fix: `move "remoteAgents" to ${globalFile}`,
    });
  }
  for (const [name, settings] of Object.entries(layer.providers ?? {})) {
    if (settings.apiKey !== undefined) {
      throw new ConfigError({
        file,
        field: `providers.${name}.apiKey`,
        problem: 'API keys are not allowed in the workspace config, which is meant to be committed',
        fix: `remove it, and set the provider's environment variable or put it under "providers.${name}.apiKey" in ${globalFile}`,
      });
    }
  }
}

/** A `postgres://user:password@…` URL, a `?password=` parameter, or a `password=` key of a connection string. */
export function databaseUrlHasPassword(url: string): boolean {
  if (/^postgres(?:ql)?:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      return parsed.password !== '' || parsed.searchParams.has('password');
    } catch {
      // Not a URL after all: the key=value test below still finds a password.
    }
  }
  return /(?:^|[\s&?])password\s*=/i.test(url);
}
