import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEGION_ERROR_CODES, type ErrorCodeEntry, type LegionErrorCode } from './error-codes.js';
import { LegionError, ProviderError } from './errors.js';

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const REFERENCE = join(REPOSITORY, 'docs/reference/error-codes.md');
const catalogue: ReadonlyArray<[LegionErrorCode, ErrorCodeEntry]> = Object.entries(LEGION_ERROR_CODES) as Array<
  [LegionErrorCode, ErrorCodeEntry]
>;
const codes = new Set<string>(Object.keys(LEGION_ERROR_CODES));

/** What a row of the reference says of a code, cell by cell. */
function row([code, entry]: [string, ErrorCodeEntry]): string[] {
  const http: string[] = [];
  if (entry.status !== undefined) http.push(String(entry.status));
  // A served code that is its own refusal (`conversation_busy`: 409) is said once.
  if (entry.served && !(entry.served.as === code && entry.served.status === entry.status))
    http.push(`${entry.served.status} as \`${entry.served.as}\``);
  return [`\`${code}\``, entry.meaning, entry.seen.join(', '), http.join('; ')];
}

/** The rows of the reference's table, cell by cell (the header and the rule left out). */
function referenceRows(markdown: string): string[][] {
  const lines = markdown.split('\n').filter((line) => line.startsWith('| `'));
  return lines.map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

/** Every .ts source file of the packages: what ships, not tests, test helpers or fixtures. */
function shippedSources(): Array<{ file: string; text: string }> {
  const sources: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(join(REPOSITORY, 'packages'))) {
    const source = join(REPOSITORY, 'packages', name, 'src');
    let files: string[];
    try {
      files = readdirSync(source, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const file of files) {
      if (!/\.tsx?$/.test(file) || /\.test(-support)?\.tsx?$/.test(file) || /(^|\/)(testing|test-support|__fixtures__|e2e)\//.test(file))
        continue;
      // The catalogue itself names every code.
      if (name === 'core' && file === 'error-codes.ts') continue;
      sources.push({ file: `packages/${name}/src/${file}`, text: readFileSync(join(source, file), 'utf8') });
    }
  }
  return sources;
}

/** Zod's own issue codes (`context.addIssue({ code: 'custom' })`): not Legion's. */
const ZOD_ISSUE_CODES = new Set(['custom', 'invalid_union', 'too_small', 'too_big']);

describe('the catalogue of error codes', () => {
  it('is what docs/reference/error-codes.md lists, row for row', () => {
    const expected = [...catalogue].sort(([a], [b]) => a.localeCompare(b)).map(row);
    expect(referenceRows(readFileSync(REFERENCE, 'utf8'))).toEqual(expected);
  });

  it('gives every code a meaning and where it is seen, refusals a status, and serves errors as API codes', () => {
    for (const [code, entry] of catalogue) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(entry.meaning, code).toMatch(/^\S.*\S$/);
      expect(entry.seen.length, code).toBeGreaterThan(0);
      // Refusals over HTTP have a status; a LegionError is served as a code of the API.
      expect(entry.status !== undefined, code).toBe(entry.seen.includes('api') || entry.seen.includes('mcp'));
      if (entry.served !== undefined) {
        expect(entry.seen, code).toContain('error');
        expect(LEGION_ERROR_CODES[entry.served.as as LegionErrorCode]?.seen, code).toContain('api');
      }
    }
  });

  it('holds every code the shipped sources write, and no code they never write', () => {
    const sources = shippedSources();
    const written = new Set<string>();
    for (const { file, text } of sources) {
      // A code given where the types do not check it: an event's, a note's, a JSON body's `code: …`.
      for (const match of text.matchAll(/\bcode: ([^,\n}]*)/g))
        // Values, not what a condition compares with (`code: result.status === 'error' ? result.code : undefined`).
        for (const literal of match[1]!.matchAll(/(?<![=!]== )'([a-z][a-z0-9_]*)'/g)) {
          const code = literal[1]!;
          if (ZOD_ISSUE_CODES.has(code)) continue;
          written.add(code);
          expect(codes.has(code), `${file} writes the code "${code}", which the catalogue (error-codes.ts) lacks`).toBe(true);
        }
    }
    const everywhere = sources.map(({ text }) => text).join('\n');
    for (const code of codes) expect(everywhere.includes(`'${code}'`), `"${code}" is catalogued, but no source writes it`).toBe(true);
    expect(written.size).toBeGreaterThan(20);
  });

  it('is the only codes a LegionError takes', () => {
    expect(new LegionError('usage', 'Use either --session or --new-session, not both.').code).toBe('usage');
    expect(new ProviderError('anthropic', 'claude', 'rate limited', 'Wait.', { code: 'provider_rate_limited' }).code).toBe(
      'provider_rate_limited',
    );
    // @ts-expect-error: a code outside the catalogue does not compile (npm run typecheck fails on it).
    expect(new LegionError('no_such_code', 'A code nobody catalogued.').code).toBe('no_such_code');
  });
});
