import { APPROVAL_CHOICES, type ApprovalChoice } from '@legion-collective/core';

/** A button (or dialog choice) that answers an approval: core's label, `…` when it asks for more (a reason). */
export interface ApprovalButton {
  choice: ApprovalChoice;
  title: string;
  /**
   * The chat button's tooltip: its label, then what it does in the words the terminal's menu shows
   * beside it. VS Code makes a button's tooltip its accessible name, so the label must lead it: a
   * screen reader (and a test finding the button by name) hears what the button says.
   */
  tooltip: string;
}

/** The editor's approval buttons, in core's one vocabulary: the same words as the REPL's keys and the browser's buttons. */
export function approvalButtons(): ApprovalButton[] {
  return APPROVAL_CHOICES.map((words) => {
    const title = words.choice === 'reject' ? `${words.label}…` : words.label;
    return { choice: words.choice, title, tooltip: `${title} — ${words.detail}` };
  });
}

/** The choice a dialog's picked title is, if it is one. */
export function choiceOfTitle(title: string | undefined): ApprovalChoice | undefined {
  return approvalButtons().find((button) => button.title === title)?.choice;
}
