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

export type ResolvedPlaceholder = { source: 'argument'; value: unknown } | { source: 'variable' | 'env'; value: string } | { source: 'missing' };

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
