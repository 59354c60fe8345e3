import type { PermissionOption, PermissionOptionKind, RequestPermissionOutcome } from '@agentclientprotocol/sdk';
import { APPROVAL_CHOICES, type ApprovalChoice } from '@legion-collective/core';

/**
 * Each choice of core's one vocabulary as the ACP option kind an editor draws it with. "For this
 * session" and "always" both keep allowing without asking (ACP's `allow_always`); they differ in
 * how long, which their labels say. Legion has no "reject always": a rejection is one call's, with
 * a reason told to the agent, so no `reject_always` option is offered.
 */
const KIND_OF_CHOICE: Record<ApprovalChoice, PermissionOptionKind> = {
  once: 'allow_once',
  session: 'allow_always',
  always: 'allow_always',
  reject: 'reject_once',
};

/** The options of every permission request: the vocabulary's four choices, in its order, with its words. */
export function permissionOptions(): PermissionOption[] {
  return APPROVAL_CHOICES.map((words) => ({
    optionId: words.choice,
    name: `${words.label} (${words.detail})`,
    kind: KIND_OF_CHOICE[words.choice],
  }));
}

/**
 * The choice an editor's answer names, or undefined when the request was cancelled (the turn was
 * cancelled, or the editor closed the request): that leaves the approval undecided for the turn
 * to settle, never an approval.
 */
export function choiceOfOutcome(outcome: RequestPermissionOutcome): ApprovalChoice | undefined {
  if (outcome.outcome !== 'selected') return undefined;
  return APPROVAL_CHOICES.find((words) => words.choice === outcome.optionId)?.choice;
}
