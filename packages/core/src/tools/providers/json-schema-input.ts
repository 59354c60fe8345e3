import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';
import { z } from 'zod';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv costs ~60 ms to load and only JSON-Schema-defined tools need it: load it (it is CommonJS,
// so synchronously) the first time such a tool is compiled, not when Legion starts.
const require = createRequire(import.meta.url);
interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2019: typeof Ajv2019;
  Ajv2020: typeof Ajv2020;
  addFormats: typeof addFormatsModule.default;
}
let modules: AjvModules | undefined;
function ajvModules(): AjvModules {
  modules ??= {
    Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
    Ajv2019: (require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019,
    Ajv2020: (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    addFormats: (require('ajv-formats') as { default: typeof addFormatsModule.default }).default,
  };
  return modules;
}

const instances = new Map<string, AnyAjv>();

/**
 * One validator per JSON Schema dialect, made on first use. `strict: false`
 * because schemas come from users and MCP servers that use annotations ajv
 * does not know (`markdownDescription`, `x-…`); meta-schema validation stays on
 * so that a malformed schema is reported rather than silently accepting anything.
 */
function ajvFor(dialect: 'draft-07' | '2019-09' | '2020-12'): AnyAjv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    const options = { strict: false, allErrors: false, logger: false } as const;
    const { Ajv, Ajv2019, Ajv2020, addFormats } = ajvModules();
    ajv = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv(options);
    addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The dialect a schema declares with `$schema`; draft-07 (what most tools emit) when it says nothing we know. */
function dialectOf(schema: Record<string, unknown>): 'draft-07' | '2019-09' | '2020-12' {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

/** Compiles a JSON Schema; throws an Error whose message says what is wrong with the schema itself. */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const dialect = dialectOf(schema);
  // A `$schema` ajv has no meta-schema for would fail the compile; the dialect is already chosen.
  const { $schema: _declared, ...rest } = schema;
  try {
    return ajvFor(dialect).compile(dialect === 'draft-07' ? rest : schema);
  } catch (error) {
    throw new Error(`is not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

/**
 * A zod schema that validates with a compiled JSON Schema, for tools defined
 * by JSON Schema (workspace tools, MCP). Each failure becomes a zod issue at
 * the offending field, so the executor's error names it the way it names the
 * fields of zod-defined tools.
 */
export function jsonSchemaInput(validate: ValidateFunction): z.ZodType<unknown> {
  return z.unknown().superRefine((value, context) => {
    if (validate(value)) return;
    const first = validate.errors?.[0];
    if (!first) {
      context.addIssue({ code: 'custom', message: "does not match the tool's parameters", input: value });
      return;
    }
    const { path, message } = describeAjvError(first, value);
    context.addIssue({ code: 'custom', path, message, input: value });
  });
}

/** An ajv error as a field path and a phrase that reads after the field name ("count" must be an integer). */
export function describeAjvError(error: ErrorObject, root: unknown): { path: PropertyKey[]; message: string } {
  const path = pathOf(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(params.missingProperty)], message: 'must be present (it is required)' };
    case 'additionalProperties':
      return { path: [...path, String(params.additionalProperty)], message: 'is not a parameter of this tool; remove it' };
    case 'type': {
      const types = String(params.type).split(',');
      return { path, message: `must be ${types.map(withArticle).join(' or ')}` };
    }
    case 'enum':
      return { path, message: `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      return { path, message: error.message ?? `fails the "${error.keyword}" rule` };
  }
}

/** `/items/0/name` → `['items', 0, 'name']`, with numbers where the data holds an array. */
function pathOf(pointer: string, root: unknown): PropertyKey[] {
  if (pointer === '') return [];
  const path: PropertyKey[] = [];
  let current = root;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const key: PropertyKey = Array.isArray(current) && /^\d+$/.test(part) ? Number(part) : part;
    path.push(key);
    current = current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return path;
}

function withArticle(type: string): string {
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
