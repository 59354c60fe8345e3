import { describeZodError } from '../../kernel/zod-issues.js';
import { compileJsonSchema, jsonSchemaInput } from './json-schema-input.js';

function problem(schema: Record<string, unknown>, input: unknown): { field: string; problem: string } {
  const parsed = jsonSchemaInput(compileJsonSchema(schema)).safeParse(input);
  expect(parsed.success).toBe(false);
  const { field, problem: text } = describeZodError(parsed.error!, input);
  return { field, problem: text };
}

describe('JSON Schema tool input', () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1 },
      labels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      url: { type: 'string', format: 'uri' },
      'odd/key': { type: ['string', 'null'] },
    },
    required: ['title'],
    additionalProperties: false,
  };

  it('names nested fields, array indexes and escaped keys the way zod-defined tools do', () => {
    expect(problem(schema, { title: 'x', labels: [{ name: 'a' }, {}] })).toEqual({
      field: 'labels[1].name',
      problem: 'must be present (it is required)',
    });
    expect(problem(schema, { title: 'x', 'odd/key': 5 })).toEqual({
      field: 'odd/key',
      problem: 'must be a string or null, got the number 5',
    });
    expect(problem(schema, { title: '' })).toEqual({ field: 'title', problem: 'must NOT have fewer than 1 characters, got the string ""' });
    expect(problem(schema, { title: 'x', url: 'not a uri' })).toEqual({
      field: 'url',
      problem: 'must match format "uri", got the string "not a uri"',
    });
    expect(problem(schema, 'just text')).toEqual({ field: '(root)', problem: 'must be an object, got the string "just text"' });
  });

  it('understands the dialect a schema declares', () => {
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
    };
    expect(problem(draft2020, { pair: ['a', 1, 'extra'] }).field).toBe('pair');
    expect(jsonSchemaInput(compileJsonSchema(draft2020)).safeParse({ pair: ['a', 1] }).success).toBe(true);
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
    };
    expect(problem(draft07, { pair: ['a', 'b'] }).field).toBe('pair');
  });

  it('reports a schema that is itself broken', () => {
    expect(() => compileJsonSchema({ type: 'object', properties: { count: { type: 'integr' } } })).toThrow(
      /^is not a valid JSON Schema \(/,
    );
  });
});
