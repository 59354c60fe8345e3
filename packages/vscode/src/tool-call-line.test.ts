import { describeToolCall, escapeMarkdown } from './tool-call-line.js';

describe('describeToolCall', () => {
  it('names the target of a delegation', () => {
    expect(describeToolCall('coordinator', 'communicate', { to: 'developer', message: 'x' })).toBe('coordinator → developer: delegating');
  });

  it('names the path or command of other tools, cut when long', () => {
    expect(describeToolCall('developer', 'file_write', { path: 'src/a.ts', content: 'x' })).toBe('developer: file_write src/a.ts');
    expect(describeToolCall('developer', 'run_command', { command: 'x'.repeat(100) })).toBe(`developer: run_command ${'x'.repeat(77)}…`);
    expect(describeToolCall('developer', 'list_tools', null)).toBe('developer: list_tools');
  });
});

describe('escapeMarkdown', () => {
  it('keeps what an agent chose from becoming links, code or emphasis', () => {
    expect(escapeMarkdown('[click](http://x) *a* `b` <img>')).toBe('\\[click\\](http://x) \\*a\\* \\`b\\` \\<img\\>');
  });
});
