import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../kernel/errors.js';
import { readJsonFile, writeJsonAtomic, writeJsonIfAbsent } from './atomic-json.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-json-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SettingsSchema = z
  .object({
    name: z.string().min(1),
    retries: z.number().int().nonnegative().default(3),
    mode: z.enum(['fast', 'careful']).optional(),
    nested: z
      .object({ items: z.array(z.object({ label: z.string() }).strict()) })
      .strict()
      .optional(),
  })
  .strict();

function readError(content: string, options: { displayPath?: string } = {}): ConfigError {
  const path = join(dir, 'settings.json');
  writeFileSync(path, content);
  try {
    readJsonFile(path, SettingsSchema, { what: 'settings file', ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    // The file a person edited is never touched by a failed read.
    expect(readFileSync(path, 'utf8')).toBe(content);
    return error as ConfigError;
  }
  throw new Error('expected readJsonFile to fail');
}

describe('writeJsonAtomic', () => {
  it('writes pretty JSON with a final newline, creating folders', () => {
    const path = join(dir, 'a', 'b', 'value.json');
    writeJsonAtomic(path, { name: 'x', list: [1, 2] });
    expect(readFileSync(path, 'utf8')).toBe('{\n  "name": "x",\n  "list": [\n    1,\n    2\n  ]\n}\n');
  });

  it('replaces an existing file whole and leaves no temp file behind', () => {
    const path = join(dir, 'value.json');
    writeJsonAtomic(path, { version: 1, text: 'a much longer first value '.repeat(20) });
    writeJsonAtomic(path, { version: 2 });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 2 });
    expect(readdirSync(dir)).toEqual(['value.json']);
  });

  it('throws and cleans up its temp file when the rename fails', () => {
    const path = join(dir, 'taken');
    mkdirSync(join(path, 'child'), { recursive: true });
    expect(() => writeJsonAtomic(path, { a: 1 })).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});

describe('writeJsonIfAbsent', () => {
  it('creates the file once and then leaves it alone', () => {
    const path = join(dir, 'sub', 'config.json');
    expect(writeJsonIfAbsent(path, { first: true })).toBe(true);
    writeFileSync(path, '{ "edited": "by hand" }');
    expect(writeJsonIfAbsent(path, { second: true })).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{ "edited": "by hand" }');
  });
});

describe('readJsonFile', () => {
  it('returns the parsed value with defaults applied', () => {
    const path = join(dir, 'settings.json');
    writeFileSync(path, '{ "name": "ok" }');
    expect(readJsonFile(path, SettingsSchema, { what: 'settings file' })).toEqual({ name: 'ok', retries: 3 });
  });

  it('accepts a byte-order mark left by an editor', () => {
    const path = join(dir, 'settings.json');
    writeFileSync(path, '\uFEFF{ "name": "bom" }');
    expect(readJsonFile(path, SettingsSchema, { what: 'settings file' }).name).toBe('bom');
  });

  it('reports broken JSON with the file, where in it, and a fix', () => {
    const error = readError('{\n  "name": "x",\n}\n', { displayPath: '.legion/settings.json' });
    expect(error.code).toBe('config_invalid');
    expect(error.file).toBe('.legion/settings.json');
    expect(error.field).toBe('');
    expect(error.message).toMatch(/^\.legion\/settings\.json: is not valid JSON \(.*line 3 column 1/);
    expect(error.message).toContain('Fix: correct the JSON syntax of this settings file');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('names the file by its full path when no display path is given', () => {
    const error = readError('not json');
    expect(error.file).toBe(join(dir, 'settings.json'));
    expect(error.message.startsWith(join(dir, 'settings.json'))).toBe(true);
  });

  it('reports a wrong field type with the field, what is expected, what was found and a fix', () => {
    const error = readError('{ "name": "x", "retries": "three" }');
    expect(error.field).toBe('retries');
    expect(error.message).toContain('(field "retries"): expected a number, got the string "three"');
    expect(error.fix).toBe('set "retries" to a number in this settings file');
  });

  it('tells a missing field from a wrong one', () => {
    const error = readError('{ "retries": 2 }');
    expect(error.field).toBe('name');
    expect(error.message).toContain('(field "name"): is missing; expected a string');
    expect(error.fix).toBe('add "name" with a string in this settings file');
  });

  it('reports an unknown field by its own name, with a fix to remove it', () => {
    const error = readError('{ "name": "x", "colour": "blue" }');
    expect(error.field).toBe('colour');
    expect(error.message).toContain('(field "colour"): is not a known field');
    expect(error.fix).toBe('remove "colour" or correct its spelling in this settings file');
  });

  it('lists the allowed values of an enum', () => {
    const error = readError('{ "name": "x", "mode": "reckless" }');
    expect(error.message).toContain('(field "mode"): expected one of "fast", "careful", got the string "reckless"');
    expect(error.fix).toBe('set "mode" to one of "fast", "careful" in this settings file');
  });

  it('names nested fields with their path', () => {
    const error = readError('{ "name": "x", "nested": { "items": [{ "label": "a" }, { "label": 7 }] } }');
    expect(error.field).toBe('nested.items[1].label');
    expect(error.message).toContain('expected a string, got the number 7');
    const unknown = readError('{ "name": "x", "nested": { "items": [{ "label": "a", "size": 1 }] } }');
    expect(unknown.field).toBe('nested.items[0].size');
  });

  it('reports a file whose top level is not an object', () => {
    const error = readError('[1, 2]');
    expect(error.field).toBe('(root)');
    expect(error.message).toContain('expected an object, got an array');
  });

  it('reports bounds in words', () => {
    expect(readError('{ "name": "" }').message).toContain('(field "name"): expected a non-empty string, got the string ""');
    expect(readError('{ "name": "x", "retries": -1 }').message).toContain('(field "retries"): expected a number >= 0, got the number -1');
    expect(readError('{ "name": "x", "retries": 1.5 }').message).toContain('(field "retries"): expected an integer, got the number 1.5');
  });
});
