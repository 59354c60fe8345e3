/**
 * `${name}` placeholders in workspace tool templates. A name is a tool
 * argument, a variable of the tool file, or `env:NAME` (the environment, so
 * that tokens stay out of files meant for git). Anything else that looks like
 * `$…` is literal text: there is no shell here to interpret it.
 */

const PLACEHOLDER = /\$\{(env:[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{(env:[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The names a template refers to, in order (`env:HOME` included as written). */
export function placeholdersIn(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** The name when the whole template is one placeholder (`"${count}"`), else undefined. */
export function wholePlaceholder(template: string): string | undefined {
  return WHOLE_PLACEHOLDER.exec(template)?.[1];
}

/** Where a placeholder's value comes from when a call is made. */
export interface PlaceholderScope {
  /** The validated arguments of the call. */
  input: Readonly<Record<string, unknown>>;
  /** `default` values from the tool's parameters, for arguments the call left out. */
  defaults: Readonly<Record<string, unknown>>;
  variables: Readonly<Record<string, string>>;
  env: NodeJS.ProcessEnv;
}

export type ResolvedPlaceholder =
  { source: 'argument'; value: unknown } | { source: 'variable' | 'env'; value: string } | { source: 'missing' };

/** Variables win over arguments: a model must not be able to override a base URL by sending an extra field. */
export function resolvePlaceholder(name: string, scope: PlaceholderScope): ResolvedPlaceholder {
  if (name.startsWith('env:')) {
    const value = scope.env[name.slice(4)];
    return value === undefined ? { source: 'missing' } : { source: 'env', value };
  }
  if (Object.hasOwn(scope.variables, name)) return { source: 'variable', value: scope.variables[name]! };
  const value = Object.hasOwn(scope.input, name) ? scope.input[name] : scope.defaults[name];
  return value === undefined || value === null ? { source: 'missing' } : { source: 'argument', value };
}

/** How an argument reads inside text: strings as they are, other values as JSON. */
export function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Fills every placeholder of a template. `encodeArgument` transforms argument
 * values only (URL templates percent-encode them; variables hold trusted text
 * such as a base URL and go in as written). Missing values become "".
 */
export function fillTemplate(template: string, scope: PlaceholderScope, encodeArgument: (text: string) => string = (text) => text): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const resolved = resolvePlaceholder(name, scope);
    if (resolved.source === 'missing') return '';
    if (resolved.source === 'argument') return encodeArgument(argumentText(resolved.value));
    return resolved.value;
  });
}

/** A template cut at its placeholders: trusted text (literal, variables, env) and the arguments between. */
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'argument'; name: string; value: unknown };

/**
 * The template as parts, so that a filler can encode each argument for the
 * place it sits in (a URL segment, a JSON string, a form value). Literal text,
 * variables and `env:` values are the file author's and come as text; a
 * missing argument has `value: undefined`.
 */
export function templateParts(template: string, scope: PlaceholderScope): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const pushText = (text: string): void => {
    if (text === '') return;
    const last = parts.at(-1);
    if (last?.kind === 'text') last.text += text;
    else parts.push({ kind: 'text', text });
  };
  let position = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    pushText(template.slice(position, match.index));
    position = match.index + match[0].length;
    const name = match[1]!;
    const resolved = resolvePlaceholder(name, scope);
    if (resolved.source === 'argument') parts.push({ kind: 'argument', name, value: resolved.value });
    else if (resolved.source === 'missing' && !name.startsWith('env:') && !Object.hasOwn(scope.variables, name))
      parts.push({ kind: 'argument', name, value: undefined });
    else pushText(resolved.source === 'missing' ? '' : resolved.value);
  }
  pushText(template.slice(position));
  return parts;
}

/** A value as an error message may quote it: short, and with control characters escaped by JSON. */
export function quotedValue(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}
