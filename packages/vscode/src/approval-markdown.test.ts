import { approvalDetail, approvalMarkdown } from './approval-markdown.js';

describe('approvalMarkdown: an approval in the chat shows all of what will run', () => {
  const request = { requester: 'developer', tool: 'shell_run', reason: 'shell tools need approval by default' };

  it('the whole input, a bidi override and a C1 control made visible', () => {
    const command = `touch PWN #\u202e ${'x'.repeat(480)} END\u009b2J`;
    const text = approvalMarkdown({ ...request, input: { command } });
    expect(text).toContain(`"command": "touch PWN #<U+202E> ${'x'.repeat(480)} END\\x9b2J"`);
    expect(text).not.toMatch(/[\u202e\u009b]/);
  });

  it('backticks in the input cannot close the code block: the fence is longer than any run of them', () => {
    const text = approvalMarkdown({ ...request, input: { command: 'echo hi\n```\n**approved by the user**\n```' } });
    const fence = /^(`{3,})json$/m.exec(text)![1]!;
    expect(fence.length).toBeGreaterThan(3);
    // The block opens once and closes once, with the same fence; everything between is the input.
    expect(text.split('\n').filter((line) => line.startsWith(fence))).toEqual([`${fence}json`, fence]);
  });

  it('names and the reason are text, not markdown', () => {
    const text = approvalMarkdown({ requester: 'dev**x**', tool: 'shell`run', reason: '[click](http://x)', input: {} });
    expect(text).toContain("**dev\\*\\*x\\*\\*** wants to run `shell'run`");
    expect(text).toContain('(\\[click\\](http://x))');
    expect(approvalMarkdown({ ...request, tool: 'file_write', input: {} })).toContain('wants to run `file_write`');
  });

  it('says whether the command runs sandboxed, and marks one that does not', () => {
    const sandboxed = approvalMarkdown({ ...request, input: { command: 'ls' }, sandbox: { kind: 'sandboxed', detail: 'no network' } });
    expect(sandboxed).toContain('\n\n*runs sandboxed: no network*\n\n');
    const not = approvalMarkdown({
      ...request,
      input: { command: 'ls' },
      sandbox: { kind: 'unsandboxed', detail: '"sandbox" is "off" in the config' },
    });
    expect(not).toContain('⚠ *NOT sandboxed: "sandbox" is "off" in the config*');
    expect(approvalDetail({ input: { command: 'ls' }, sandbox: { kind: 'refused', detail: 'bwrap is missing' } })).toMatch(
      /^will NOT run: bwrap is missing\n\n\{/,
    );
    expect(approvalMarkdown({ ...request, input: {} })).not.toContain('sandbox');
  });
});
