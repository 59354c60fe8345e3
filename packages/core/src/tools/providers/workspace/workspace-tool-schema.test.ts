import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { WorkspaceToolFileSchema } from './workspace-tool-schema.js';

const schemaUrl = new URL('../../../../schemas/workspace-tool.schema.json', import.meta.url);
const published = JSON.parse(readFileSync(schemaUrl, 'utf8')) as Record<string, unknown>;

const shell = { type: 'shell', command: ['git', 'log', '-n', '${count}'] };
const http = { type: 'http', url: 'https://api.example.com/items/${id}' };
const base = { name: 'git_log', description: 'Shows recent commits', execution: shell };

const accepted: Record<string, unknown> = {
  'the smallest shell tool': base,
  'an http tool with everything': {
    $schema: '../../node_modules/@legion-collective/core/schemas/workspace-tool.schema.json',
    version: 1,
    name: 'create-item',
    description: 'Creates an item',
    parameters: {
      type: 'object',
      properties: { title: { type: 'string' }, count: { type: 'integer', default: 1 } },
      required: ['title'],
      additionalProperties: false,
    },
    execution: {
      type: 'http',
      method: 'POST',
      url: '${API_URL}/items',
      headers: { Authorization: 'Bearer ${env:API_TOKEN}', 'X-Trace': 'legion' },
      body: { title: '${title}', count: '${count}', tags: ['a', '${title}'] },
      timeoutMs: 5000,
    },
    variables: { API_URL: 'https://api.example.com' },
    requiresApproval: false,
    timeoutMs: 10_000,
    category: 'tracker',
    tags: ['items', 'http'],
  },
  'a shell tool with cwd and env': { ...base, execution: { ...shell, cwd: 'scripts', env: { GIT_PAGER: 'cat', LIMIT: '${count}' } } },
  'a string body': { ...base, execution: { ...http, method: 'PUT', body: 'count=${count}' } },
  'an array body': { ...base, execution: { ...http, method: 'POST', body: ['${id}'] } },
  'a url that starts with a variable': { ...base, execution: { ...http, url: '${BASE}/x' }, variables: { BASE: 'http://127.0.0.1:1' } },
  'a one-element command': { ...base, execution: { type: 'shell', command: ['ls'] } },
  'a parameter whose values may start with "-"': {
    ...base,
    parameters: { type: 'object', properties: { count: { type: 'string', allowOptionLike: true } } },
  },
};

const rejected: Record<string, unknown> = {
  'no name': { description: 'x', execution: shell },
  'a name with spaces': { ...base, name: 'git log' },
  'a name longer than 64 characters': { ...base, name: 'x'.repeat(65) },
  'an empty description': { ...base, description: '' },
  'no execution': { name: 'x', description: 'x' },
  'an unknown execution type': { ...base, execution: { type: 'inline', code: 'x' } },
  'a shell command as one string (it would need a shell)': { ...base, execution: { type: 'shell', command: 'git log -n 5' } },
  'an empty command': { ...base, execution: { type: 'shell', command: [] } },
  'an empty program': { ...base, execution: { type: 'shell', command: ['', 'x'] } },
  'a non-string argument': { ...base, execution: { type: 'shell', command: ['echo', 5] } },
  'a shell field on http': { ...base, execution: { ...http, command: ['x'] } },
  'an unknown field in the execution': { ...base, execution: { ...shell, shell: '/bin/sh' } },
  'an unknown top-level field': { ...base, requires_approval: false },
  'an ftp url': { ...base, execution: { ...http, url: 'ftp://example.com/x' } },
  'a url without a scheme': { ...base, execution: { ...http, url: 'example.com/x' } },
  'a lowercase method': { ...base, execution: { ...http, method: 'get' } },
  'a numeric header value': { ...base, execution: { ...http, headers: { 'X-Count': 5 } } },
  'a header name with a space': { ...base, execution: { ...http, headers: { 'X Count': '5' } } },
  'a numeric body': { ...base, execution: { ...http, method: 'POST', body: 5 } },
  'a zero timeout': { ...base, timeoutMs: 0 },
  'a fractional timeout': { ...base, timeoutMs: 1.5 },
  'a string requiresApproval': { ...base, requiresApproval: 'no' },
  'parameters that are not an object schema': { ...base, parameters: { type: 'array' } },
  'parameters without a type': { ...base, parameters: { properties: {} } },
  'a parameter property that is not a schema': { ...base, parameters: { type: 'object', properties: { count: 5 } } },
  'allowOptionLike that is not a boolean': {
    ...base,
    parameters: { type: 'object', properties: { count: { type: 'string', allowOptionLike: 'yes' } } },
  },
  'a variable name with a dash': { ...base, variables: { 'API-URL': 'x' } },
  'a numeric variable': { ...base, variables: { COUNT: 5 } },
  'version 2': { ...base, version: 2 },
  'an empty tag': { ...base, tags: [''] },
  'an empty category': { ...base, category: '' },
  'a non-object file': ['git_log'],
};

describe('the workspace tool file format', () => {
  const addFormats = addFormatsModule.default;
  // strict: the published schema itself must be clean for editors and validators alike
  // (the command is an open tuple on purpose, a program then any arguments; the body is a string or JSON).
  const ajv = new Ajv({ strict: true, strictTuples: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(published);

  it.each(Object.entries(accepted))('both schemas accept %s', (_label, example) => {
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(WorkspaceToolFileSchema.safeParse(example).error).toBeUndefined();
  });

  it.each(Object.entries(rejected))('both schemas reject %s', (_label, example) => {
    expect(validate(example)).toBe(false);
    expect(WorkspaceToolFileSchema.safeParse(example).success).toBe(false);
  });

  it('is published with the package', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('schemas');
  });
});
