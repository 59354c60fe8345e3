import { z } from 'zod';
import { describeZodError } from '../../../kernel/index.js';
import type { ToolContext } from '../../tool.js';

/**
 * What a server Legion consumes may ask the human during a tool call (MCP
 * `elicitation/create`), checked: the server is as untrusted as the model, so
 * the schema is capped in size and limited to the flat primitive fields MCP
 * allows, and text meant for the user loses its control characters (no
 * terminal escapes, no forged lines).
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const MAX_FIELDS = 32;
const MAX_OPTIONS = 100;
const MAX_MESSAGE = 4000;
const MAX_URL = 2048;

/** Control characters (C0 but newline and tab, DEL, C1), which could drive a terminal or fake a prompt. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * The schemas of an elicitation's parts, built when the first one arrives: most runs meet none, and
 * building them at load was ~1 ms of every start of the CLI.
 */
function buildSchemas() {
  const clean = (max: number) =>
    z
      .string()
      .max(max)
      .transform((text) => text.replace(CONTROL, ''));
  const option = clean(200);

  const Shown = { title: clean(200).optional(), description: clean(1000).optional() };

  const StringFieldSchema = z.object({
    type: z.literal('string'),
    ...Shown,
    minLength: z.number().int().min(0).max(100_000).optional(),
    maxLength: z.number().int().min(0).max(100_000).optional(),
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    default: z.string().max(10_000).optional(),
  });
  const SingleSelectFieldSchema = z.object({
    type: z.literal('string'),
    ...Shown,
    enum: z.array(option).min(1).max(MAX_OPTIONS).optional(),
    /** Labels of `enum`'s values (the legacy titled form). */
    enumNames: z.array(option).max(MAX_OPTIONS).optional(),
    oneOf: z
      .array(z.object({ const: option, title: option.optional() }))
      .min(1)
      .max(MAX_OPTIONS)
      .optional(),
    default: option.optional(),
  });
  const NumberFieldSchema = z.object({
    type: z.enum(['number', 'integer']),
    ...Shown,
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  });
  const BooleanFieldSchema = z.object({ type: z.literal('boolean'), ...Shown, default: z.boolean().optional() });
  const MultiSelectFieldSchema = z.object({
    type: z.literal('array'),
    ...Shown,
    minItems: z.number().int().min(0).max(MAX_OPTIONS).optional(),
    maxItems: z.number().int().min(0).max(MAX_OPTIONS).optional(),
    items: z.union([
      z.object({ type: z.literal('string'), enum: z.array(option).min(1).max(MAX_OPTIONS) }),
      z.object({
        anyOf: z
          .array(z.object({ const: option, title: option.optional() }))
          .min(1)
          .max(MAX_OPTIONS),
      }),
    ]),
    default: z.array(option).max(MAX_OPTIONS).optional(),
  });
  const FormParamsSchema = z.object({
    mode: z.literal('form').optional(),
    message: clean(MAX_MESSAGE),
    requestedSchema: z.object({
      type: z.literal('object'),
      properties: z.record(z.string(), z.unknown()),
      required: z.array(z.string()).max(MAX_FIELDS).optional(),
    }),
  });
  const UrlParamsSchema = z.object({
    mode: z.literal('url'),
    message: clean(MAX_MESSAGE),
    url: z.string().max(MAX_URL),
    elicitationId: clean(200),
  });
  return {
    StringFieldSchema,
    SingleSelectFieldSchema,
    NumberFieldSchema,
    BooleanFieldSchema,
    MultiSelectFieldSchema,
    FormParamsSchema,
    UrlParamsSchema,
  };
}
let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = (): ReturnType<typeof buildSchemas> => (built ??= buildSchemas());

/** One field a form asks for, with its choices (if any) as `{ value, label }`. */
export type ElicitationField =
  | {
      name: string;
      kind: 'string';
      title?: string | undefined;
      description?: string | undefined;
      minLength?: number | undefined;
      maxLength?: number | undefined;
      format?: 'email' | 'uri' | 'date' | 'date-time' | undefined;
      default?: string | undefined;
    }
  | {
      name: string;
      kind: 'choice';
      title?: string | undefined;
      description?: string | undefined;
      options: Array<{ value: string; label?: string | undefined }>;
      default?: string | undefined;
    }
  | {
      name: string;
      kind: 'number' | 'integer';
      title?: string | undefined;
      description?: string | undefined;
      minimum?: number | undefined;
      maximum?: number | undefined;
      default?: number | undefined;
    }
  | { name: string; kind: 'boolean'; title?: string | undefined; description?: string | undefined; default?: boolean | undefined }
  | {
      name: string;
      kind: 'choices';
      title?: string | undefined;
      description?: string | undefined;
      options: Array<{ value: string; label?: string | undefined }>;
      minItems?: number | undefined;
      maxItems?: number | undefined;
      default?: string[] | undefined;
    };

export interface ElicitationForm {
  fields: ElicitationField[];
  required: string[];
}

/** An elicitation as Legion routes it to the user. */
export type McpElicitation = {
  /** The configured server's name (`mcpServers.<name>`). */
  server: string;
  message: string;
  /** The tool calls of this server running when it asked, oldest first: who and what it interrupts. */
  calls: Array<{ tool: string; context: ToolContext }>;
} & ({ mode: 'form'; form: ElicitationForm } | { mode: 'url'; url: string; elicitationId: string });

export type ElicitationValue = string | number | boolean | string[];

/** The answer the server gets; `reason`, when the user did not decide it, says why (reported, and in the result's `_meta`). */
export type McpElicitationAnswer =
  | { action: 'accept'; content?: Record<string, ElicitationValue> | undefined }
  | { action: 'decline' | 'cancel'; reason?: string | undefined };

/** Routes an elicitation to a human; provided by Legion (the attached user surfaces). */
export type McpElicitHandler = (request: McpElicitation, options: { signal: AbortSignal }) => Promise<McpElicitationAnswer>;

export type ParsedElicitation =
  | {
      ok: true;
      value:
        { mode: 'form'; message: string; form: ElicitationForm } | { mode: 'url'; message: string; url: string; elicitationId: string };
    }
  | { ok: false; problem: string };

/** Checks an `elicitation/create` request's params; a problem names what the server got wrong. */
export function parseElicitation(params: unknown): ParsedElicitation {
  const mode = (params as { mode?: unknown } | null)?.mode;
  if (mode === 'url') {
    const parsed = schemas().UrlParamsSchema.safeParse(params);
    if (!parsed.success) return { ok: false, problem: problemOf(parsed.error, params) };
    let url: URL;
    try {
      url = new URL(parsed.data.url);
    } catch {
      return { ok: false, problem: 'url is not a valid URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return { ok: false, problem: `url must be http or https, not ${url.protocol}` };
    if (url.username || url.password) return { ok: false, problem: 'url must not carry credentials' };
    return { ok: true, value: { mode: 'url', message: parsed.data.message, url: url.href, elicitationId: parsed.data.elicitationId } };
  }
  const parsed = schemas().FormParamsSchema.safeParse(params);
  if (!parsed.success) return { ok: false, problem: problemOf(parsed.error, params) };
  const { properties, required = [] } = parsed.data.requestedSchema;
  const names = Object.keys(properties);
  if (names.length === 0) return { ok: false, problem: 'requestedSchema has no properties' };
  if (names.length > MAX_FIELDS)
    return { ok: false, problem: `requestedSchema has ${names.length} properties; at most ${MAX_FIELDS} are accepted` };
  const fields: ElicitationField[] = [];
  for (const name of names) {
    if (!NAME.test(name))
      return {
        ok: false,
        problem: `requestedSchema property name ${JSON.stringify(name.slice(0, 80))} is not a plain name (letters, digits, _ . -, at most 64)`,
      };
    const field = parseField(name, properties[name]);
    if (typeof field === 'string') return { ok: false, problem: `requestedSchema.properties.${name}: ${field}` };
    fields.push(field);
  }
  const unknown = required.find((name) => !names.includes(name));
  if (unknown !== undefined)
    return { ok: false, problem: `requestedSchema.required names ${JSON.stringify(unknown.slice(0, 80))}, which is not a property` };
  return { ok: true, value: { mode: 'form', message: parsed.data.message, form: { fields, required } } };
}

function parseField(name: string, schema: unknown): ElicitationField | string {
  const type = (schema as { type?: unknown } | null)?.type;
  const shown = (field: { title?: string | undefined; description?: string | undefined }) => ({
    ...(field.title !== undefined ? { title: field.title } : {}),
    ...(field.description !== undefined ? { description: field.description } : {}),
  });
  if (type === 'string' && schema !== null && typeof schema === 'object' && ('enum' in schema || 'oneOf' in schema)) {
    const parsed = schemas().SingleSelectFieldSchema.safeParse(schema);
    if (!parsed.success) return problemOf(parsed.error, schema);
    const field = parsed.data;
    const options = field.oneOf
      ? field.oneOf.map((choice) => ({ value: choice.const, ...(choice.title !== undefined ? { label: choice.title } : {}) }))
      : (field.enum ?? []).map((value, index) => ({
          value,
          ...(field.enumNames?.[index] !== undefined ? { label: field.enumNames[index] } : {}),
        }));
    if (field.default !== undefined && !options.some((choice) => choice.value === field.default))
      return 'its default is not one of its choices';
    return { name, kind: 'choice', ...shown(field), options, ...(field.default !== undefined ? { default: field.default } : {}) };
  }
  switch (type) {
    case 'string': {
      const parsed = schemas().StringFieldSchema.safeParse(schema);
      if (!parsed.success) return problemOf(parsed.error, schema);
      const { type: _type, title: _title, description: _description, ...rest } = parsed.data;
      return { name, kind: 'string', ...shown(parsed.data), ...rest };
    }
    case 'number':
    case 'integer': {
      const parsed = schemas().NumberFieldSchema.safeParse(schema);
      if (!parsed.success) return problemOf(parsed.error, schema);
      const { type: kind, title: _title, description: _description, ...rest } = parsed.data;
      return { name, kind, ...shown(parsed.data), ...rest };
    }
    case 'boolean': {
      const parsed = schemas().BooleanFieldSchema.safeParse(schema);
      if (!parsed.success) return problemOf(parsed.error, schema);
      return {
        name,
        kind: 'boolean',
        ...shown(parsed.data),
        ...(parsed.data.default !== undefined ? { default: parsed.data.default } : {}),
      };
    }
    case 'array': {
      const parsed = schemas().MultiSelectFieldSchema.safeParse(schema);
      if (!parsed.success) return problemOf(parsed.error, schema);
      const field = parsed.data;
      const options =
        'enum' in field.items
          ? field.items.enum.map((value) => ({ value }))
          : field.items.anyOf.map((choice) => ({ value: choice.const, ...(choice.title !== undefined ? { label: choice.title } : {}) }));
      if (field.default?.some((value) => !options.some((choice) => choice.value === value)))
        return 'its default has a value that is not one of its choices';
      return {
        name,
        kind: 'choices',
        ...shown(field),
        options,
        ...(field.minItems !== undefined ? { minItems: field.minItems } : {}),
        ...(field.maxItems !== undefined ? { maxItems: field.maxItems } : {}),
        ...(field.default !== undefined ? { default: field.default } : {}),
      };
    }
    default:
      return `type ${JSON.stringify(type)} is not one MCP elicitation allows (string, number, integer, boolean, or an array of choices)`;
  }
}

function problemOf(error: z.ZodError, input: unknown): string {
  const { field, problem } = describeZodError(error, input);
  return field ? `${field} ${problem}` : problem;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks content against the form: every required field present, no field the
 * form does not have, each value of its field's type and within its limits.
 * Returns the problems, one per field, empty when the content fits.
 */
export function checkElicitationContent(form: ElicitationForm, content: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(content))
    if (!form.fields.some((field) => field.name === name))
      problems.push(`${JSON.stringify(name.slice(0, 80))} is not a field of this form`);
  for (const field of form.fields) {
    const value = content[field.name];
    if (value === undefined) {
      if (form.required.includes(field.name)) problems.push(`${field.name} is required`);
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) problems.push(`${field.name} ${problem}`);
  }
  return problems;
}

function checkValue(field: ElicitationField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      if (field.minLength !== undefined && value.length < field.minLength) return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
      if (field.format === 'email' && !EMAIL.test(value)) return 'must be an email address';
      if (field.format === 'uri' && !URL.canParse(value)) return 'must be a URI (scheme:…)';
      if (field.format === 'date' && (!DATE.test(value) || Number.isNaN(Date.parse(value)))) return 'must be a date (YYYY-MM-DD)';
      if (field.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))))
        return 'must be a date and time (YYYY-MM-DDTHH:MM:SSZ)';
      return undefined;
    }
    case 'choice':
      return typeof value === 'string' && field.options.some((choice) => choice.value === value)
        ? undefined
        : `must be one of ${field.options.map((choice) => choice.value).join(', ')}`;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.kind === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'choices':
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !field.options.some((choice) => choice.value === item)))
        return `must be a list of ${field.options.map((choice) => choice.value).join(', ')}`;
      if (new Set(value).size !== value.length) return 'must not repeat a choice';
      if (field.minItems !== undefined && value.length < field.minItems) return `must have at least ${field.minItems} choices`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `must have at most ${field.maxItems} choices`;
      return undefined;
  }
}
