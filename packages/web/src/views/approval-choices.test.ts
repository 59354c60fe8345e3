import { APPROVAL_CHOICES } from '@legion-collective/core';
import { APPROVAL_BUTTONS } from './approval-choices.js';

describe("the browser's approval buttons", () => {
  it("are core's four choices, in core's words and order, each sending its answer", () => {
    expect(APPROVAL_BUTTONS.map((button) => [button.choice, button.number, button.label, button.detail])).toEqual(
      APPROVAL_CHOICES.map((words) => [words.choice, words.number, words.label, words.detail]),
    );
    expect(APPROVAL_BUTTONS.map((button) => [button.decision, 'remember' in button ? button.remember : undefined])).toEqual([
      ['approve', 'once'],
      ['approve', 'session'],
      ['approve', 'always'],
      ['reject', undefined],
    ]);
  });
});
