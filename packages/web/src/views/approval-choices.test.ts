import { APPROVAL_CHOICES } from '@legion-collective/core';
import { APPROVAL_BUTTONS } from './approval-choices.js';

describe("the browser's approval buttons", () => {
  it("are core's four choices, in core's words and order", () => {
    expect(APPROVAL_BUTTONS.map((button) => [button.choice, button.label])).toEqual(
      APPROVAL_CHOICES.map((words) => [words.choice, words.label]),
    );
  });
});
