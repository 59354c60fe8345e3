import type { WireMessage } from '../api/wire.js';
import { argumentsPatch, filePatch } from './diff-of.js';
import { safeHref } from './safe-href.js';
import { placeToolResults, showsNothing } from './tool-results.js';
import { hueOf } from './names.js';

describe('what the browser shows of a reply and a file change', () => {
  it('diffs an overwrite against the file as it was: removed lines are there, no "new file" hunk', () => {
    const patch = filePatch('notes.md', 'a\nold\nb\n', 'a\nnew\nb\n');
    expect(patch).toContain('-old');
    expect(patch).toContain('+new');
    expect(patch).toContain('@@ -1,3 +1,3 @@');
    expect(filePatch('new.md', null, 'hi')).toContain('--- /dev/null');
  });

  it('draws no diff of a file_write from its arguments alone (it would claim a new file)', () => {
    expect(argumentsPatch('file_write', { path: 'a.txt', content: 'x' })).toBeNull();
    expect(argumentsPatch('file_edit', { path: 'a.txt', old_string: 'x', new_string: 'y' })).toContain('-x\n+y');
    expect(argumentsPatch('shell_run', { command: 'ls' })).toBeNull();
  });

  it('links only to http, https and mailto', () => {
    expect(safeHref('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(safeHref('mailto:a@example.com')).toBe('mailto:a@example.com');
    for (const unsafe of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      '/api/sessions',
      'vbscript:x',
    ])
      expect(safeHref(unsafe), unsafe).toBeNull();
  });

  it('draws no bubble for a message of white space only (a tool-call-only response padded with "\\n\\n")', () => {
    const message = (id: string, content: WireMessage['content']): WireMessage =>
      ({ id, role: 'assistant', author: 'coordinator', at: '2026-12-07T00:00:00.000Z', content }) as WireMessage;
    const messages = [message('m1', [{ type: 'text', text: '\n\n' }]), message('m2', [{ type: 'text', text: 'Hello' }])];
    const placement = placeToolResults(messages);
    expect(showsNothing(messages[0]!, placement)).toBe(true);
    expect(showsNothing(messages[1]!, placement)).toBe(false);
  });

  it('gives each participant one colour, the same every time', () => {
    expect(hueOf('coordinator')).toBe(hueOf('coordinator'));
    expect(hueOf('coordinator')).not.toBe(hueOf('developer'));
    expect(hueOf('x')).toBeGreaterThanOrEqual(0);
  });
});
