/** Variable names that hold secrets by convention: API keys, tokens, passwords, credentials. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Shorter values are too likely to occur by chance ("true", "8080") and would garble ordinary output. */
const MIN_SECRET_LENGTH = 8;

/**
 * Replaces the values of secret-looking environment variables with
 * `[redacted:NAME]`, so that a command that prints its environment (or a key it
 * was given) does not put the secret into the model's context, the logs or
 * events. Longer values are replaced first, so a secret that contains another
 * is not half-replaced.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv): string {
  const secrets = secretValues(env);
  let result = text;
  for (const { name, value } of secrets) {
    if (result.includes(value)) result = result.split(value).join(`[redacted:${name}]`);
  }
  return result;
}

/** Secret values of `env`, longest first; one name per value. */
export function secretValues(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  const byValue = new Map<string, string>();
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || value.length < MIN_SECRET_LENGTH || !SECRET_NAME.test(name)) continue;
    if (!byValue.has(value)) byValue.set(value, name);
  }
  return [...byValue.entries()].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

/** A redactor for one environment, with its secrets found once (the hot path only scans text). */
export function secretRedactor(env: NodeJS.ProcessEnv): (text: string) => string {
  const secrets = secretValues(env);
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let result = text;
    for (const { name, value } of secrets) if (result.includes(value)) result = result.split(value).join(`[redacted:${name}]`);
    return result;
  };
}
