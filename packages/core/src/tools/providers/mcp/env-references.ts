import { LegionError } from '../../../kernel/index.js';

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${env:NAME}` in config values (an MCP server's env or headers), so
 * tokens live in the environment and not in a config file meant for git. A
 * reference to an unset variable is an error that names it, not an empty token.
 */
export function expandEnvReferences(
  values: Readonly<Record<string, string>> | undefined,
  env: NodeJS.ProcessEnv,
  where: string,
): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    expanded[key] = value.replace(ENV_REFERENCE, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new LegionError(
          'mcp_env_missing',
          `${where}.${key} refers to \${env:${name}}, but the environment variable ${name} is not set.`,
          { variable: name },
        );
      }
      return found;
    });
  }
  return expanded;
}
