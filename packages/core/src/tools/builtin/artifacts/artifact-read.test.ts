import { countTextTokens } from '../../../model/context/text-tokens.js';
import { loadTokenCounter } from '../../../model/context/token-count.js';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { createArtifactReadTool } from './artifact-read.js';

const read = createArtifactReadTool();

describe('artifact_read', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  beforeEach(async () => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root, resultTokenBudget: 700 });
    await context.session.artifacts.put(
      'tool-big.txt',
      Array.from({ length: 5_000 }, (_, index) => `row ${index + 1} status=${index % 3 === 0 ? 'fail' : 'ok'}`).join('\n'),
    );
  });
  afterEach(() => workspace.cleanup());

  it('reads pages by offset and limit, saying where to read on', async () => {
    expect(successText(await run(read, { name: 'tool-big.txt', offset: 4999, limit: 10 }, context))).toBe(
      [
        'tool-big.txt (5000 lines, 97226 bytes)',
        '  4999  row 4999 status=fail',
        '  5000  row 5000 status=ok',
        '(lines 4999-5000 of 5000: the end)',
      ].join('\n'),
    );
    const page = successText(await run(read, { name: 'tool-big.txt' }, context));
    expect(page).toContain('     1  row 1 status=fail\n     2  row 2 status=ok');
    expect(page).toMatch(/\(lines 1-(\d+) of 5000; read on with offset (\d+)\)$/);
    expect(errorText(await run(read, { name: 'tool-big.txt', offset: 6000 }, context))).toBe(
      'Artifact "tool-big.txt" has 5000 lines; offset 6000 is past the end.',
    );
  });

  it('never returns more than fits under the eviction threshold, so reading never evicts again', async () => {
    const count = await loadTokenCounter();
    const page = successText(await run(read, { name: 'tool-big.txt', limit: 2000 }, context));
    expect(countTextTokens(count, page)).toBeLessThan(700);
    const last = Number(/read on with offset (\d+)/.exec(page)![1]);
    expect(last).toBeGreaterThan(20);
    expect(last).toBeLessThan(2001);
    // One line larger than any page is shown cut, and the reader can still go on past it.
    await context.session.artifacts.put('tool-line.txt', `${'y'.repeat(100_000)}\nafter`);
    const line = successText(await run(read, { name: 'tool-line.txt' }, context));
    expect(countTextTokens(count, line)).toBeLessThan(700);
    expect(line).toMatch(
      /… \[\d+ more characters of line 1; grep finds text inside it\]\n\(lines 1-1 of 2 \(that line is cut\); read on with offset 2\)$/,
    );
    const grep = successText(await run(read, { name: 'tool-big.txt', grep: 'status=fail', context: 0, max_matches: 500 }, context));
    expect(countTextTokens(count, grep)).toBeLessThan(700);
    expect(grep).toMatch(/stopped at line (\d+) to stay within your context; grep on with offset \1\)$/);
  });

  it('greps with context lines, from an offset, in linear time', async () => {
    expect(successText(await run(read, { name: 'tool-big.txt', grep: '^row 300[0-9] status=fail$', context: 1 }, context))).toBe(
      [
        'tool-big.txt (5000 lines, 97226 bytes)',
        '  3000- row 3000 status=ok',
        '  3001: row 3001 status=fail',
        '  3002- row 3002 status=ok',
        '  3003- row 3003 status=ok',
        '  3004: row 3004 status=fail',
        '  3005- row 3005 status=ok',
        '  3006- row 3006 status=ok',
        '  3007: row 3007 status=fail',
        '  3008- row 3008 status=ok',
        '(3 matching lines from line 1 to the end)',
      ].join('\n'),
    );
    expect(successText(await run(read, { name: 'tool-big.txt', grep: 'row 1 ', offset: 2 }, context))).toBe(
      'tool-big.txt (5000 lines, 97226 bytes)\nNo line from 2 on matches /row 1 /.',
    );
    // A backtracking engine would take ages on this; RE2 does not backtrack.
    await context.session.artifacts.put('tool-redos.txt', `${'a'.repeat(5_000)}!`);
    expect(successText(await run(read, { name: 'tool-redos.txt', grep: '(a+)+$' }, context))).toContain('No line from 1 on matches');
    expect(errorText(await run(read, { name: 'tool-big.txt', grep: '(a)\\1' }, context))).toContain('no backreferences');
  });

  it('refuses hostile names, and reads only this session’s artifacts', async () => {
    for (const name of ['../session.json', '/etc/passwd', '.hidden', 'a/b']) {
      expect(errorText(await run(read, { name }, context))).toMatch(
        /is not an artifact name: use letters, digits.*Artifact names come from an evicted result's first line/,
      );
    }
    const other = toolContext({ root: workspace.root, sessionId: '20250101-000000-fedcba' });
    expect(errorText(await run(read, { name: 'tool-big.txt' }, other))).toBe(
      'No artifact "tool-big.txt" in this session. This session has no artifacts. Use the exact name an evicted result\'s first line gives.',
    );
    expect(errorText(await run(read, { name: 'tool-missing.txt' }, context))).toBe(
      'No artifact "tool-missing.txt" in this session. This session\'s artifacts: tool-big.txt. Use the exact name an evicted result\'s first line gives.',
    );
  });
});
