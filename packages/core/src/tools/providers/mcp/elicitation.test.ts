import { checkElicitationContent, parseElicitation } from './elicitation.js';

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  message: 'Tell me',
  requestedSchema: { type: 'object', properties, ...extra },
});

describe('parseElicitation: what a server may ask the user', () => {
  it('accepts the flat primitive fields MCP allows, and strips control characters from what the user reads', () => {
    const parsed = parseElicitation({
      message: 'Approve?\u001b[2J\u001b]0;pwned\u0007 yes\r',
      requestedSchema: {
        type: 'object',
        properties: {
          approve: { type: 'boolean', title: 'Approve\u001b[31m', default: false },
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          mode: { type: 'string', oneOf: [{ const: 'fast', title: 'Fast' }, { const: 'safe' }] },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
        },
        required: ['approve'],
      },
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        mode: 'form',
        message: 'Approve?[2J]0;pwned yes',
        form: {
          fields: [
            { name: 'approve', kind: 'boolean', title: 'Approve[31m', default: false },
            { name: 'port', kind: 'integer', minimum: 1, maximum: 65535 },
            { name: 'mode', kind: 'choice', options: [{ value: 'fast', label: 'Fast' }, { value: 'safe' }] },
            { name: 'tags', kind: 'choices', options: [{ value: 'a' }, { value: 'b' }], maxItems: 2 },
          ],
          required: ['approve'],
        },
      },
    });
  });

  it.each([
    [
      'a nested object',
      form({ address: { type: 'object', properties: { street: { type: 'string' } } } }),
      'requestedSchema.properties.address: type "object" is not one MCP elicitation allows',
    ],
    ['an array of free text', form({ lines: { type: 'array', items: { type: 'string' } } }), 'requestedSchema.properties.lines: '],
    [
      'too many fields',
      form(Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`f${index}`, { type: 'string' }]))),
      'requestedSchema has 33 properties; at most 32 are accepted',
    ],
    ['a name that could forge a line', form({ 'ok\n- admin (yes or no)': { type: 'boolean' } }), 'is not a plain name'],
    [
      'too many choices',
      form({ pick: { type: 'string', enum: Array.from({ length: 101 }, (_, index) => `o${index}`) } }),
      'requestedSchema.properties.pick: ',
    ],
    ['a huge message', { ...form({ a: { type: 'string' } }), message: 'x'.repeat(4001) }, 'message '],
    [
      'a required field that does not exist',
      form({ a: { type: 'string' } }, { required: ['b'] }),
      'requestedSchema.required names "b", which is not a property',
    ],
    ['no fields', form({}), 'requestedSchema has no properties'],
    [
      'a default outside the choices',
      form({ pick: { type: 'string', enum: ['a'], default: 'z' } }),
      'its default is not one of its choices',
    ],
    [
      'a URL that is not http(s)',
      { mode: 'url', message: 'Open', url: 'javascript:alert(1)', elicitationId: 'e1' },
      'url must be http or https, not javascript:',
    ],
    [
      'a URL with credentials',
      { mode: 'url', message: 'Open', url: 'https://user:secret@example.com/', elicitationId: 'e1' },
      'url must not carry credentials',
    ],
  ])('refuses %s', (_name, params, problem) => {
    const parsed = parseElicitation(params);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toContain(problem);
  });
});

describe('checkElicitationContent: the answer against the form', () => {
  const parsed = parseElicitation(
    form(
      {
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date' },
        count: { type: 'integer', minimum: 1, maximum: 10 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
      },
      { required: ['email'] },
    ),
  );
  if (!parsed.ok || parsed.value.mode !== 'form') throw new Error('the form should parse');
  const { form: checked } = parsed.value;

  it('accepts content that fits', () => {
    expect(checkElicitationContent(checked, { email: 'ada@example.com', when: '1843-09-05', count: 3, tags: ['a'] })).toEqual([]);
  });

  it('names every field that does not fit, and fields the form does not have', () => {
    expect(checkElicitationContent(checked, { when: '5 Sept', count: 2.5, tags: ['a', 'a'], extra: true })).toEqual([
      '"extra" is not a field of this form',
      'email is required',
      'when must be a date (YYYY-MM-DD)',
      'count must be a whole number',
      'tags must not repeat a choice',
    ]);
    expect(checkElicitationContent(checked, { email: 'nobody', count: 11, tags: [] })).toEqual([
      'email must be an email address',
      'count must be at most 10',
      'tags must have at least 1 choices',
    ]);
  });
});
