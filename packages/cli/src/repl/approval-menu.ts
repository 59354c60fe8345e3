import { matchesKey } from '@mariozechner/pi-tui';
import { APPROVAL_CHOICES, type ApprovalChoice } from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { approvalChoiceLines } from '../render/approval-choices.js';

const style = styleFor(process.stdout);

/** What a key did to the menu: nothing (the key is the input's), moved the selection, or confirmed a choice. */
export type MenuKeyOutcome = { kind: 'ignored' } | { kind: 'moved' } | { kind: 'chosen'; choice: ApprovalChoice };

/**
 * The numbered menu under an approval card: core's four choices, in core's order and words. A
 * choice is made only explicitly: ↑/↓ or a digit selects, Enter confirms. Nothing is selected at
 * first, so an Enter meant for the input (pressed twice, or just as the card came up) decides
 * nothing. The REPL hands it keys only while the input is empty.
 */
export class ApprovalMenu {
  private selected: number | undefined;
  /** Enter was pressed with nothing selected: the menu says how to choose. */
  private nudged = false;

  /**
   * @param unavailable why "always" cannot be offered for this call (no rule can approve it), if it cannot
   */
  constructor(private readonly unavailable: () => string | undefined) {}

  key(data: string): MenuKeyOutcome {
    // Matched as a key, not compared as text: a terminal speaking the kitty keyboard protocol may send a digit as an escape sequence.
    const digit = APPROVAL_CHOICES.findIndex((words) => matchesKey(data, `${words.number}`));
    if (digit !== -1) return this.select(digit);
    if (matchesKey(data, 'up')) return this.select(this.selected === undefined ? APPROVAL_CHOICES.length - 1 : this.selected - 1);
    if (matchesKey(data, 'down')) return this.select(this.selected === undefined ? 0 : this.selected + 1);
    if (matchesKey(data, 'enter')) {
      const words = this.selected === undefined ? undefined : APPROVAL_CHOICES[this.selected];
      if (words) return { kind: 'chosen', choice: words.choice };
      this.nudged = true;
      return { kind: 'moved' };
    }
    return { kind: 'ignored' };
  }

  private select(index: number): MenuKeyOutcome {
    this.selected = (index + APPROVAL_CHOICES.length) % APPROVAL_CHOICES.length;
    this.nudged = false;
    return { kind: 'moved' };
  }

  /** The menu's lines: the choices, then how to answer (or why the card takes no keys now). */
  lines(inputHoldsText: boolean, width?: number): string[] {
    const unavailable = this.unavailable();
    const rows = approvalChoiceLines(style, {
      width,
      selected: this.selected === undefined ? undefined : APPROVAL_CHOICES[this.selected]?.choice,
      ...(unavailable === undefined ? {} : { unavailable: { always: `no rule can approve this call: ${unavailable}` } }),
    });
    const how = inputHoldsText
      ? style.yellow('the input holds text: the card takes no keys until it is empty (Ctrl-C clears it; Enter sends it as a message)')
      : style.cyan(
          this.nudged
            ? `choose first: ↑/↓ or 1–${APPROVAL_CHOICES.length}, then Enter`
            : `↑/↓ or 1–${APPROVAL_CHOICES.length} to choose, Enter to confirm`,
        );
    return [...rows, `  ${how}`];
  }
}
