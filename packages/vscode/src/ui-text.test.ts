import { describeSavedRule } from './approval-rule-line.js';
import { describeToolCall } from './tool-call-line.js';
import { errorNotice, notice, questionMarkdown, questionNotice, questionPrompt, visibleRow } from './ui-text.js';

// A model's question that reads as something else: a CR that returns to the line's start, an escape
// sequence, a right-to-left override that reverses what follows, a zero-width space.
const HOSTILE = 'Which port? 8080\r  Approve deleting /etc?\x1b[2K \u202egnp.exe\u200b';
const SHOWN = 'Which port? 8080␍  Approve deleting /etc?\\x1b[2K <U+202E>gnp.exe<U+200B>';

describe("what VS Code UI shows of a model's text", () => {
  it('the answer input box: its title and prompt', () => {
    expect(questionPrompt({ from: 'coord\u202einator', text: HOSTILE })).toEqual({ title: 'Answer coord<U+202E>inator', prompt: SHOWN });
  });

  it('the question notification and the chat heading (markdown kept, a line per quoted line)', () => {
    expect(questionNotice({ from: 'coordinator', text: HOSTILE })).toBe(`Legion: coordinator asks you: ${SHOWN}`);
    expect(questionMarkdown({ from: 'co*ord', text: `${HOSTILE}\nsecond **line**` })).toBe(
      `**co\\*ord** asks you:\n\n> ${SHOWN}\n> second **line**\n\n`,
    );
  });

  it("notifications of errors and of a tool call's question", () => {
    expect(errorNotice(new Error(HOSTILE))).toBe(`Legion: ${SHOWN}`);
    expect(notice(`run shell_run ${HOSTILE}?`)).toBe(`Legion: run shell_run ${SHOWN}?`);
  });

  it('every tree row: label, description and tooltip', () => {
    expect(visibleRow({ label: `coordinator asks`, description: HOSTILE, tooltip: HOSTILE, icon: 'question' })).toEqual({
      label: 'coordinator asks',
      description: SHOWN,
      tooltip: SHOWN,
      icon: 'question',
    });
    expect(visibleRow({ label: HOSTILE, icon: 'history' })).toEqual({ label: SHOWN, icon: 'history' });
  });

  it("the chat's tool-call progress line and saved-rule line", () => {
    expect(describeToolCall('developer', 'shell_run', { command: 'touch PWN1 #\r  echo harmless' })).toBe(
      'developer: shell_run touch PWN1 #␍  echo harmless',
    );
    expect(describeSavedRule({ ruleId: 'r1', requester: 'developer', tool: 'shell_run', pattern: 'rm -rf /\u202e' })).toContain(
      'on `rm -rf /<U+202E>` without asking',
    );
  });
});
