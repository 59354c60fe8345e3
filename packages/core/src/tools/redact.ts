/** Variable and field names that hold secrets by convention: API keys, tokens, passwords, credentials. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Shorter values are too likely to occur by chance ("true", "8080") and would garble ordinary output. */
const MIN_SECRET_LENGTH = 8;

export interface NamedSecret {
  name: string;
  value: string;
}

/**
 * Well-known key shapes, redacted even when Legion was never told the key (a
 * key in a file the agent reads, in a command's output, in an error).
 */
const KEY_SHAPES: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  // A block cut off before its BEGIN line (the head of the output was cut away) still ends in END.
  { name: 'private-key', pattern: /^[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { name: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
];

/** `scheme://user:password@host`: the password goes, the rest (useful for debugging) stays. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)@/gi;

/**
 * Replaces secrets in text: the values of secret-looking environment variables
 * and of secret fields in Legion's configuration (`[redacted:NAME]`),
 * well-known key shapes, and passwords in URLs. Known values go first, longest
 * first, so a secret that contains another is not half-replaced.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv, extra: readonly NamedSecret[] = []): string {
  return secretRedactor(env, extra)(text);
}

/** Secret values of `env`, longest first; one name per value. */
export function secretValues(env: NodeJS.ProcessEnv): NamedSecret[] {
  return sortedSecrets(
    Object.keys(env)
      .sort()
      .flatMap((name) => {
        const value = env[name];
        return value !== undefined && SECRET_NAME.test(name) ? [{ name, value }] : [];
      }),
  );
}

/**
 * Secret-looking string fields anywhere in a configuration object (provider
 * `apiKey`s of the global config, an MCP server's `env` token, a URL with a
 * password), named by their path.
 */
export function configSecrets(config: unknown, path = 'config'): NamedSecret[] {
  const found: NamedSecret[] = [];
  const visit = (value: unknown, at: string, name: string): void => {
    if (typeof value === 'string') {
      if (SECRET_NAME.test(name)) found.push({ name: at, value });
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${at}[${index}]`, name));
    else if (typeof value === 'object' && value !== null) for (const [key, inner] of Object.entries(value)) visit(inner, `${at}.${key}`, key);
  };
  visit(config, path, '');
  return sortedSecrets(found);
}

/** A redactor with its known secrets found once (the hot path only scans text). */
export function secretRedactor(env: NodeJS.ProcessEnv, extra: readonly NamedSecret[] = []): (text: string) => string {
  const secrets = sortedSecrets([...secretValues(env), ...extra]);
  return (text) => {
    let result = text;
    for (const { name, value } of secrets) if (result.includes(value)) result = result.split(value).join(`[redacted:${name}]`);
    for (const { name, pattern } of KEY_SHAPES) result = result.replace(pattern, `[redacted:${name}]`);
    return result.replace(URL_PASSWORD, '$1[redacted]@');
  };
}

function sortedSecrets(secrets: readonly NamedSecret[]): NamedSecret[] {
  const byValue = new Map<string, string>();
  for (const { name, value } of secrets) if (value.length >= MIN_SECRET_LENGTH && !byValue.has(value)) byValue.set(value, name);
  return [...byValue.entries()].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

/** Characters that end a key: keys are runs of letters, digits, `-`, `_`, `.`, `/`, `+`. */
const TOKEN_END = /[\s"'`=:,;<>()[\]{}|&]/;
/** Keys are shorter than this; a run longer than it at a cut is a blob (minified code, base64), left as it is. */
const TOKEN_REACH = 256;

/**
 * A head of output about to be followed by a cut, less any unfinished token at
 * its end: back to the last character that ends a key, if one is near. Used
 * at every cut of output, so half a key never survives next to "… cut …".
 */
export function cutBackToSpace(text: string): string {
  for (let index = text.length - 1; index >= Math.max(0, text.length - TOKEN_REACH); index--) if (TOKEN_END.test(text[index]!)) return text.slice(0, index + 1);
  return text;
}

/** The mirror of `cutBackToSpace` for the start of a tail. */
export function cutForwardToSpace(text: string): string {
  for (let index = 0; index < Math.min(text.length, TOKEN_REACH); index++) if (TOKEN_END.test(text[index]!)) return text.slice(index);
  return text;
}
