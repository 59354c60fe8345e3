import { NAME_KEYED_SECTIONS, SECRET_FIELD } from '../team/index.js';
import { redactKeyShapes, redactUrlPasswords, trailingKeyShapeStart } from './secret-shapes.js';

/** Variable names that hold secrets by convention: API keys, tokens, passwords, credentials. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Shorter values are too likely to occur by chance ("true", "8080") and would garble ordinary output. */
const MIN_SECRET_LENGTH = 8;
/** Shortest piece of a known secret that is hidden when it sits at the edge of a cut. */
const MIN_FRAGMENT_LENGTH = 4;
/** The marks that `capOutput` and the commands' output captures leave where they cut text out. */
const CUT_MARK = /\n… \[\d+ (?:characters|bytes) cut\] …\n/g;
const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface NamedSecret {
  /** Shown in place of the value: `[redacted:NAME]`. */
  name: string;
  value: string;
}

/** Where secrets come from: the environment and the (merged) Legion config with its global file's keys. */
export interface SecretSources {
  env?: NodeJS.ProcessEnv | undefined;
  /** Any JSON-like value, normally the resolved config; every string under a secret-named field counts. */
  config?: unknown;
}

/** Secret values of `env`, longest first; one name per value. */
export function secretValues(env: NodeJS.ProcessEnv): NamedSecret[] {
  const found: NamedSecret[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value !== undefined && SECRET_NAME.test(name)) found.push({ name, value });
  }
  return longestFirst(found);
}

/**
 * Every string under a secret-named field of a config (`providers.openai.apiKey`,
 * `mcpServers.github.env.GITHUB_TOKEN`), named by its dotted path. A value that
 * refers to the environment (`${env:NAME}`) stands for that variable's value.
 */
export function configSecretValues(config: unknown, env: NodeJS.ProcessEnv = {}): NamedSecret[] {
  const found: NamedSecret[] = [];
  const visit = (value: unknown, path: string, field: string): void => {
    if (typeof value === 'string') {
      if (SECRET_FIELD.test(field)) found.push(...secretsOfConfigValue(value, path, env));
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}[${index}]`, field));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value))
        if (path || !NAME_KEYED_SECTIONS.has(key)) visit(item, path ? `${path}.${key}` : key, key);
    }
  };
  visit(config, '', '');
  return longestFirst(found);
}

function secretsOfConfigValue(value: string, path: string, env: NodeJS.ProcessEnv): NamedSecret[] {
  const references = [...value.matchAll(ENV_REFERENCE)].map((match) => match[1]!);
  if (references.length > 0) return references.flatMap((name) => (env[name] === undefined ? [] : [{ name, value: env[name] }]));
  // "Bearer abc…": the credential is what follows the scheme, and it is what a command would print.
  return [{ name: path, value: value.replace(/^(?:Bearer|Basic|Token)\s+/i, '') }];
}

/**
 * A redactor with its secrets found once (the hot path only scans text). It
 * replaces, in this order: known secret values (environment and config) with
 * `[redacted:NAME]`, well-known key shapes even when nobody configured them
 * (`sk-ant-…`, `ghp_…`, `AKIA…`, private-key blocks), and passwords in URLs
 * (`postgres://user:[redacted]@host`). Where text was cut (`… [N bytes cut] …`),
 * a piece of a known secret on either side of the cut is hidden too.
 *
 * Apply it to whole text before cutting it: a secret straddling a cut is no
 * longer whole on either side, and only its known value can still be recognised.
 */
export function createRedactor(sources: SecretSources = {}): (text: string) => string {
  const secrets = dedupe([...secretValues(sources.env ?? {}), ...configSecretValues(sources.config, sources.env ?? {})]);
  return (text) => {
    let result = text;
    for (const { name, value } of secrets) if (result.includes(value)) result = result.split(value).join(`[redacted:${name}]`);
    result = redactUrlPasswords(redactKeyShapes(result));
    return result.includes('cut] …\n') ? redactAroundCuts(result, secrets) : result;
  };
}

const redactorsByEnv = new WeakMap<NodeJS.ProcessEnv, (text: string) => string>();

/**
 * Redacts `text` with the secrets of `env` and the well-known shapes. The
 * redactor is built once per environment object: commands' output is redacted
 * chunk by chunk with the same one.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv): string {
  let redact = redactorsByEnv.get(env);
  if (!redact) {
    redact = createRedactor({ env });
    redactorsByEnv.set(env, redact);
  }
  return redact(text);
}

/** Every distinct value worth looking for, longest first so that a secret containing another is replaced whole. */
function dedupe(secrets: readonly NamedSecret[]): NamedSecret[] {
  const byValue = new Map<string, string>();
  for (const { name, value } of secrets) if (value.length >= MIN_SECRET_LENGTH && !byValue.has(value)) byValue.set(value, name);
  return longestFirst([...byValue.entries()].map(([value, name]) => ({ name, value })));
}

function longestFirst(secrets: NamedSecret[]): NamedSecret[] {
  const seen = new Set<string>();
  return secrets
    .filter(({ value }) => value.length >= MIN_SECRET_LENGTH && !seen.has(value) && seen.add(value))
    .sort((a, b) => b.value.length - a.value.length);
}

/**
 * A cut leaves the start of a secret at the end of the text before it and its
 * end at the start of the text after it; neither is the whole value.
 */
function redactAroundCuts(text: string, secrets: readonly NamedSecret[]): string {
  const pieces = text.split(CUT_MARK);
  if (pieces.length === 1) return text;
  const marks = text.match(CUT_MARK) ?? [];
  let result = '';
  pieces.forEach((piece, index) => {
    let current = piece;
    if (index > 0) current = hideLeadingFragment(current, secrets);
    if (index < pieces.length - 1) current = hideTrailingFragment(current, secrets);
    result += current + (marks[index] ?? '');
  });
  return result;
}

function hideTrailingFragment(text: string, secrets: readonly NamedSecret[]): string {
  for (const { name, value } of secrets) {
    const edge = text.slice(-(value.length - 1));
    // Longest first: the earliest place in the edge where the rest of the text starts the secret.
    for (let start = 0; start <= edge.length - MIN_FRAGMENT_LENGTH; start++) {
      if (edge.charCodeAt(start) === value.charCodeAt(0) && value.startsWith(edge.slice(start))) {
        return `${text.slice(0, text.length - (edge.length - start))}[redacted:${name}]`;
      }
    }
  }
  const shapeStart = trailingKeyShapeStart(text);
  return shapeStart === undefined ? text : `${text.slice(0, shapeStart.index)}[redacted:${shapeStart.name}]`;
}

function hideLeadingFragment(text: string, secrets: readonly NamedSecret[]): string {
  for (const { name, value } of secrets) {
    const edge = text.slice(0, value.length - 1);
    const last = value.charCodeAt(value.length - 1);
    for (let end = edge.length; end >= MIN_FRAGMENT_LENGTH; end--) {
      if (edge.charCodeAt(end - 1) === last && value.endsWith(edge.slice(0, end))) return `[redacted:${name}]${text.slice(end)}`;
    }
  }
  return text;
}
