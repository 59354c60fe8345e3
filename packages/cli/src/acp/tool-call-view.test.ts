import { diffContent, inputContent, keptChangeContent, toolCallView } from './tool-call-view.js';

const where = { entryAgent: 'coordinator', root: '/work/project' };

describe("an editor's view of Legion's tool calls", () => {
  it("titles a delegation with the delegate and what it was asked, and a delegate's own calls with its name", () => {
    const delegation = toolCallView(
      { type: 'tool_use', id: 't1', name: 'communicate', input: { to: 'developer', message: 'Write\n  notes.txt' } },
      { participant: 'coordinator', ...where },
    );
    expect(delegation).toEqual({ title: 'asks developer: Write notes.txt', kind: 'other', locations: [] });
    const edit = toolCallView(
      { type: 'tool_use', id: 't2', name: 'file_edit', input: { path: 'src/a.ts', old_string: 'a', new_string: 'b' } },
      { participant: 'developer', ...where },
    );
    expect(edit).toEqual({ title: 'developer: file_edit src/a.ts', kind: 'edit', locations: [{ path: '/work/project/src/a.ts' }] });
  });

  it('gives each kind of tool its ACP kind: reads, searches, commands, the plan, and other tools', () => {
    const kind = (name: string, input: unknown = {}) =>
      toolCallView({ type: 'tool_use', id: 'x', name, input }, { participant: 'coordinator', ...where }).kind;
    expect([
      kind('file_read'),
      kind('file_grep'),
      kind('shell_run', { command: 'ls' }),
      kind('todo_write'),
      kind('docs__search_web'),
    ]).toEqual(['read', 'search', 'execute', 'think', 'other']);
    expect(
      toolCallView(
        { type: 'tool_use', id: 'x', name: 'shell_run', input: { command: 'npm test' } },
        { participant: 'coordinator', ...where },
      ).title,
    ).toBe('shell_run npm test');
  });

  it('shows a file change as a diff at its absolute path, and one that cannot be shown says why', () => {
    expect(diffContent({ status: 'shown', path: 'a.txt', before: 'old', after: 'new' }, '/r')).toEqual([
      { type: 'diff', path: '/r/a.txt', oldText: 'old', newText: 'new' },
    ]);
    expect(diffContent({ status: 'not_shown', path: 'b.bin', reason: '"b.bin" looks binary.' }, '/r')).toEqual([
      { type: 'content', content: { type: 'text', text: 'The change to b.bin is not shown: "b.bin" looks binary.' } },
    ]);
  });

  it('shows the exact command line a shell call would run, and any other input whole', () => {
    expect(inputContent('shell_run', { command: 'rm -rf build', cwd: 'pkg' })).toEqual([
      { type: 'content', content: { type: 'text', text: '$ rm -rf build\n(in pkg)' } },
    ]);
    expect(inputContent('process_start', { command: 'npm run dev' })).toEqual([
      { type: 'content', content: { type: 'text', text: '{\n  "command": "npm run dev"\n}' } },
    ]);
  });

  it("shows a past call's kept change hunk by hunk, a new file without old text, and a change not kept with why", () => {
    const twoHunks = [
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,2 +1,2 @@',
      '-one',
      '+uno',
      ' two',
      '@@ -9,2 +9,2 @@',
      ' nine',
      '-ten',
      '+diez',
      '',
    ].join('\n');
    expect(keptChangeContent({ status: 'kept', path: 'a.txt', action: 'edited', patch: twoHunks }, 'Edited a.txt.', '/r')).toEqual([
      { type: 'diff', path: '/r/a.txt', oldText: 'one\ntwo\n', newText: 'uno\ntwo\n' },
      { type: 'diff', path: '/r/a.txt', oldText: 'nine\nten\n', newText: 'nine\ndiez\n' },
    ]);
    const created = ['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,1 @@', '+hello', ''].join('\n');
    expect(keptChangeContent({ status: 'kept', path: 'n.txt', action: 'created', patch: created }, 'Created n.txt.', '/r')).toEqual([
      { type: 'diff', path: '/r/n.txt', oldText: null, newText: 'hello\n' },
    ]);
    expect(
      keptChangeContent(
        { status: 'not_kept', path: 'big.txt', action: 'replaced', reason: 'too large to keep.' },
        'Overwrote big.txt.',
        '/r',
      ),
    ).toEqual([
      { type: 'content', content: { type: 'text', text: 'The change to big.txt was not kept: too large to keep.' } },
      { type: 'content', content: { type: 'text', text: 'Overwrote big.txt.' } },
    ]);
  });
});
