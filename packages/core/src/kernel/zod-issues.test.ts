import { z } from 'zod';
import { ParticipantSchema, PermissionSchema } from '../team/collective/participant.js';
import { describeZodError } from './zod-issues.js';

function describe_(schema: z.ZodType, input: unknown, mode: 'with input' | 'report input' | 'bare' = 'with input') {
  const parsed = schema.safeParse(input, mode === 'bare' ? undefined : { reportInput: true });
  if (parsed.success) throw new Error('expected the parse to fail');
  return mode === 'with input' ? describeZodError(parsed.error, input) : describeZodError(parsed.error);
}

describe('describeZodError', () => {
  it('says what an unknown participant type should be', () => {
    const problem = describe_(ParticipantSchema, { id: 'x', type: 'robot', name: 'X' });
    expect(problem).toEqual({
      field: 'type',
      problem: 'expected one of "agent", "user", "mock", "a2a", got the string "robot"',
      fix: 'set "type" to one of "agent", "user", "mock", "a2a"',
    });
  });

  it('says a missing participant type is missing', () => {
    const problem = describe_(ParticipantSchema, { id: 'x', name: 'X' });
    expect(problem.field).toBe('type');
    expect(problem.problem).toBe('is missing; expected one of "agent", "user", "mock", "a2a"');
  });

  it('finds the received value in the issue itself when zod reported it', () => {
    expect(describe_(ParticipantSchema, { id: 'x', type: 'robot', name: 'X' }, 'report input').problem).toBe(
      'expected one of "agent", "user", "mock", "a2a", got the string "robot"',
    );
    expect(describe_(z.object({ n: z.number() }), { n: 'five' }, 'report input').problem).toBe('expected a number, got the string "five"');
    expect(describe_(z.object({ n: z.number() }), {}, 'report input').problem).toBe('is missing; expected a number');
  });

  it('does not claim a field is missing when it cannot know', () => {
    expect(describe_(z.object({ n: z.number() }), { n: 'five' }, 'bare').problem).toBe('expected a number');
  });

  it('lists the alternatives of a plain union', () => {
    const problem = describe_(z.object({ tools: PermissionSchema }), { tools: 'some' });
    expect(problem.field).toBe('tools');
    expect(problem.problem).toBe('expected "all", "none" or an array, got the string "some"');
    expect(problem.fix).toBe('set "tools" to "all", "none" or an array');
  });

  it('names every unknown field', () => {
    const problem = describe_(z.object({ a: z.string() }).strict(), { a: 'x', b: 1, c: 2 });
    expect(problem.field).toBe('b');
    expect(problem.problem).toBe('is not a known field (nor is "c")');
    expect(problem.fix).toBe('remove "b", "c" or correct their spelling');
  });

  it('keeps the message of a custom refinement', () => {
    const problem = describe_(ParticipantSchema, { id: 'a__b', type: 'user', name: 'X' });
    expect(problem.field).toBe('id');
    expect(problem.problem).toMatch(/^expected an id of letters, digits.*, got the string "a__b"$/);
    expect(problem.fix).toMatch(/^correct "id" \(it must be an id of letters/);
  });

  it('explains an invalid URL', () => {
    const problem = describe_(z.object({ baseURL: z.url() }), { baseURL: 'not a url' });
    expect(problem.problem).toBe('expected a URL such as "https://example.com/v1", got the string "not a url"');
  });

  it('shortens long strings it quotes', () => {
    const problem = describe_(z.object({ n: z.number() }), { n: 'x'.repeat(100) });
    expect(problem.problem).toBe(`expected a number, got the string "${'x'.repeat(40)}…"`);
  });
});
