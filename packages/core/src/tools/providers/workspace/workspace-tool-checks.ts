import { inlineCodeOf } from './inline-code.js';
import { placeholdersIn } from './placeholders.js';
import type { WorkspaceToolFile } from './workspace-tool-schema.js';

export interface WorkspaceToolProblem {
  /** Dotted path in the file (`execution.command[2]`), or `(root)`. */
  field: string;
  problem: string;
}

/**
 * Rules the JSON Schema cannot express: every placeholder must name a
 * parameter, a variable or `env:NAME` (a typo would otherwise quietly become
 * an empty string), variables may not shadow parameters, an argument is not
 * written into code an interpreter runs (`sh -c "…${arg}"`), and a GET has no body.
 */
export function checkWorkspaceTool(definition: WorkspaceToolFile): WorkspaceToolProblem | undefined {
  const parameterNames = new Set(Object.keys(definition.parameters?.properties ?? {}));
  const variables = definition.variables ?? {};
  for (const [name, value] of Object.entries(variables)) {
    if (parameterNames.has(name)) {
      return { field: `variables.${name}`, problem: `has the name of a parameter; rename one of them so "\${${name}}" means one thing` };
    }
    const notEnv = placeholdersIn(value).find((placeholder) => !placeholder.startsWith('env:'));
    if (notEnv !== undefined) {
      return { field: `variables.${name}`, problem: `refers to "\${${notEnv}}"; variables may only use \${env:NAME}` };
    }
  }
  for (const [field, template] of templates(definition)) {
    for (const name of placeholdersIn(template)) {
      if (name.startsWith('env:') || parameterNames.has(name) || Object.hasOwn(variables, name)) continue;
      const known = [...parameterNames, ...Object.keys(variables)];
      return {
        field,
        problem: `refers to "\${${name}}", which is not a parameter, a variable or \${env:NAME} (known: ${known.join(', ') || 'none'})`,
      };
    }
  }
  const execution = definition.execution;
  const inline = execution.type === 'shell' ? inlineCodeOf(execution.command) : undefined;
  if (execution.type === 'shell' && inline) {
    const argument = placeholdersIn(execution.command[inline.index]!).find((name) => parameterNames.has(name));
    if (argument !== undefined) {
      return {
        field: `execution.command[${inline.index}]`,
        problem:
          `puts the argument "\${${argument}}" inside the code ${inline.program} runs, where its quotes, ";" and "$(…)" would run as code. ` +
          `Pass it as its own element after the code, or through "execution.env", and read it from there: ${inline.example.replaceAll('NAME', argument)}`,
      };
    }
  }
  if (
    execution.type === 'http' &&
    execution.body !== undefined &&
    (execution.method === undefined || execution.method === 'GET' || execution.method === 'HEAD')
  ) {
    return {
      field: 'execution.body',
      problem: `is not sent with ${execution.method ?? 'GET'}; set "execution.method" to POST, PUT, PATCH or DELETE, or remove the body`,
    };
  }
  return undefined;
}

/** Every template string of the execution, with its field path. */
function templates(definition: WorkspaceToolFile): Array<[string, string]> {
  const execution = definition.execution;
  const found: Array<[string, string]> = [];
  if (execution.type === 'shell') {
    execution.command.forEach((part, index) => found.push([`execution.command[${index}]`, part]));
    for (const [name, value] of Object.entries(execution.env ?? {})) found.push([`execution.env.${name}`, value]);
  } else {
    found.push(['execution.url', execution.url]);
    for (const [name, value] of Object.entries(execution.headers ?? {})) found.push([`execution.headers.${name}`, value]);
    collectJsonStrings(execution.body, 'execution.body', found);
  }
  return found;
}

function collectJsonStrings(value: unknown, field: string, found: Array<[string, string]>): void {
  if (typeof value === 'string') found.push([field, value]);
  else if (Array.isArray(value)) value.forEach((item, index) => collectJsonStrings(item, `${field}[${index}]`, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) collectJsonStrings(item, `${field}.${key}`, found);
  }
}
