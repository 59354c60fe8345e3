import { argumentText, fillTemplate, resolvePlaceholder, wholePlaceholder, type PlaceholderScope } from './placeholders.js';

/** The parameter keyword with which a tool file lets a parameter's values start with "-". */
export const ALLOW_OPTION_LIKE = 'allowOptionLike';

/** A placeholder at the very start of a template. */
const LEADING_PLACEHOLDER = /^\$\{(env:[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)\}/;

export type ExpandedArgv = { ok: true; argv: string[] } | { ok: false; error: string };

export interface ArgvTemplateOptions {
  toolName: string;
  /** Parameters whose values may start with "-" (see `optionLikeParameters`). */
  optionLike?: ReadonlySet<string> | undefined;
}

/**
 * Fills each argv element. An element that is exactly one placeholder is
 * dropped when the argument is missing (an optional flag value) and spread
 * into several arguments when the value is an array (`["git", "add", "${paths}"]`).
 *
 * A model's value that would begin an element with "-" is refused: the program
 * would read `--output=/x` as an option, not as the ref or path the tool file
 * meant. Allowed when the tool file says so: the parameter has
 * `"allowOptionLike": true` or lists its values (`enum`, `const`), or the
 * element comes after a literal `"--"`, where programs stop reading options.
 */
export function expandArgv(command: readonly string[], scope: PlaceholderScope, options: ArgvTemplateOptions): ExpandedArgv {
  const argv: string[] = [];
  const endOfOptions = command.indexOf('--');
  for (const [index, part] of command.entries()) {
    const checked = endOfOptions === -1 || index < endOfOptions;
    const whole = wholePlaceholder(part);
    if (whole === undefined) {
      const filled = fillTemplate(part, scope);
      const source = checked && filled.startsWith('-') ? leadingArgument(part, scope) : undefined;
      if (source !== undefined && !options.optionLike?.has(source)) return refuse(options.toolName, source, filled, argv[0] ?? filled);
      argv.push(filled);
      continue;
    }
    const resolved = resolvePlaceholder(whole, scope);
    if (resolved.source === 'missing') continue;
    if (resolved.source !== 'argument') {
      argv.push(resolved.value);
      continue;
    }
    const values = Array.isArray(resolved.value) ? resolved.value.map(argumentText) : [argumentText(resolved.value)];
    const optionLike = checked && !options.optionLike?.has(whole) ? values.find((value) => value.startsWith('-')) : undefined;
    if (optionLike !== undefined) return refuse(options.toolName, whole, optionLike, argv[0] ?? optionLike);
    argv.push(...values);
  }
  return { ok: true, argv };
}

/**
 * The parameters a tool file lets start with "-": marked `"allowOptionLike": true`,
 * or whose every value is written in the file (`enum`, `const`, also for array items).
 */
export function optionLikeParameters(properties: Readonly<Record<string, Record<string, unknown>>> | undefined): Set<string> {
  const allowed = new Set<string>();
  for (const [name, schema] of Object.entries(properties ?? {})) {
    const items =
      schema.items !== null && typeof schema.items === 'object' && !Array.isArray(schema.items)
        ? (schema.items as Record<string, unknown>)
        : undefined;
    if (schema[ALLOW_OPTION_LIKE] === true || listsValues(schema) || (schema.type === 'array' && items !== undefined && listsValues(items)))
      allowed.add(name);
  }
  return allowed;
}

function listsValues(schema: Record<string, unknown>): boolean {
  return Array.isArray(schema.enum) || Object.hasOwn(schema, 'const');
}

/**
 * Which argument put the first characters into a filled element, if one did:
 * the first placeholder at the very start of the template that is not empty.
 */
function leadingArgument(template: string, scope: PlaceholderScope): string | undefined {
  let rest = template;
  for (let match = LEADING_PLACEHOLDER.exec(rest); match; match = LEADING_PLACEHOLDER.exec(rest)) {
    const resolved = resolvePlaceholder(match[1]!, scope);
    const text = resolved.source === 'missing' ? '' : resolved.source === 'argument' ? argumentText(resolved.value) : resolved.value;
    if (text !== '') return resolved.source === 'argument' ? match[1]! : undefined;
    rest = rest.slice(match[0].length);
  }
  return undefined;
}

function refuse(toolName: string, parameter: string, value: string, program: string): ExpandedArgv {
  const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return {
    ok: false,
    error:
      `${toolName}: "${parameter}" is ${JSON.stringify(shown)}, which starts with "-", so ${program} would read it as an option instead of as the ${parameter}; nothing was run. ` +
      `Fix: pass a value that does not start with "-". (The tool file can allow such values with "${ALLOW_OPTION_LIKE}": true on parameters.${parameter}, or a "--" before the placeholder in execution.command.)`,
  };
}
