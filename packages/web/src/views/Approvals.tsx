import { useState } from 'preact/hooks';
import type { ApprovalView } from '../api/wire.js';
import { APPROVAL_BUTTONS, type Answer, type ApprovalButton } from './approval-choices.js';
import { useApprovalDecisions, type Decide } from './approval-decisions.js';
import { ApprovalInput } from './FileChangeDiff.js';
import { displayName, type Person } from './names.js';
import { sandboxText } from './sandbox-text.js';
import { oneLine } from './format.js';
import { visibleText } from './visible-text.js';
import { Who } from './Who.js';

/** The digit keys of core's choices (the terminal's menu), taken on a focused card, never while typing in it. */
const DIGIT_CHOICES = APPROVAL_BUTTONS.map((button) => String(button.number)).join(' ');

/** An approval waiting for an answer: the inbox's card, and the one a conversation shows. */
export function PendingApproval({
  approval,
  participants,
  staged,
  waitingFor,
  onStage,
}: {
  approval: ApprovalView;
  participants: readonly Person[];
  staged: Answer | undefined;
  waitingFor: number;
  onStage(answer: Answer): void;
}) {
  const [reason, setReason] = useState('');
  const decide = (button: ApprovalButton) => {
    onStage({
      id: approval.id,
      decision: button.decision,
      ...('remember' in button && button.remember !== 'once' ? { remember: button.remember } : {}),
      ...(button.decision === 'reject' && reason.trim() !== '' ? { reason: reason.trim() } : {}),
    });
  };
  // Test ids as before (`approve-ID` is "once", `approve-always-ID` the rule), and one for the session.
  const testId = (button: ApprovalButton) =>
    button.choice === 'once'
      ? `approve-${approval.id}`
      : button.choice === 'reject'
        ? `reject-${approval.id}`
        : `approve-${button.choice}-${approval.id}`;
  // The approvals first; the rejection after the reason it sends.
  const approvals = APPROVAL_BUTTONS.filter((button) => button.decision === 'approve');
  const reject = APPROVAL_BUTTONS.find((button) => button.decision === 'reject')!;
  return (
    <li
      class="card approval"
      data-testid={`approval-${approval.id}`}
      data-tool={approval.tool}
      tabIndex={0}
      aria-label={`Approval: ${displayName(participants, approval.requester)} wants to run ${approval.tool}`}
      aria-keyshortcuts={DIGIT_CHOICES}
      onKeyDown={(event) => {
        if (event.ctrlKey || event.metaKey || event.altKey || staged) return;
        if (event.target instanceof Element && event.target.closest('input, textarea, select, [contenteditable]')) return;
        const button = APPROVAL_BUTTONS.find((candidate) => String(candidate.number) === event.key);
        if (!button) return;
        event.preventDefault();
        decide(button);
      }}
    >
      <div class="meta">
        <Who id={approval.requester} participants={participants} /> wants to run <code>{visibleText(approval.tool)}</code>
        <span class="muted"> · asks {visibleText(displayName(participants, approval.approver))}</span>
      </div>
      <div class="chain" data-testid="approval-chain">
        {approval.chain.map((id, index) => (
          <span key={index}>
            {index > 0 && ' → '}
            <span class="tag">{visibleText(displayName(participants, id))}</span>
          </span>
        ))}
      </div>
      {approval.reason && <p class="muted">{visibleText(approval.reason)}</p>}
      {approval.sandbox && (
        <p class={`sandbox ${approval.sandbox.kind}`} data-testid={`approval-sandbox-${approval.id}`}>
          {visibleText(sandboxText(approval.sandbox))}
        </p>
      )}
      {/* All of the input, wrapped (never cut), with what a reader would not see made visible: what is approved is what runs. */}
      <ApprovalInput approval={approval} />
      <div class="row">
        {approvals.map((button) => (
          <button
            type="button"
            key={button.choice}
            title={button.detail}
            aria-keyshortcuts={String(button.number)}
            data-testid={testId(button)}
            onClick={() => decide(button)}
          >
            {button.label}
          </button>
        ))}
        <input
          value={reason}
          placeholder="Reason for rejecting"
          data-testid={`reject-reason-${approval.id}`}
          onInput={(event) => setReason(event.currentTarget.value)}
        />
        <button
          type="button"
          class="danger"
          title={reject.detail}
          aria-keyshortcuts={String(reject.number)}
          data-testid={testId(reject)}
          onClick={() => decide(reject)}
        >
          {reject.label}
        </button>
      </div>
      <p class="muted keys">
        Keys, with the card focused: {APPROVAL_BUTTONS.map((button) => `${button.number} ${button.label.toLowerCase()}`).join(' · ')}
      </p>
      {staged && (
        <p class="muted" data-testid={`approval-staged-${approval.id}`}>
          {staged.decision === 'approve' ? 'Approve' : 'Reject'}
          {waitingFor > 0
            ? `: sent once the ${waitingFor} other call${waitingFor === 1 ? '' : 's'} of this response ${waitingFor === 1 ? 'is' : 'are'} decided.`
            : '…'}
        </p>
      )}
    </li>
  );
}

/** A decided approval, one line: how it was decided, the call, for whom, by whom and why. */
export function DecidedApproval({
  approval,
  participants,
  testId,
}: {
  approval: ApprovalView;
  participants: readonly Person[];
  testId: string;
}) {
  return (
    <li data-testid={testId} data-status={approval.cancelled ? 'cancelled' : approval.status}>
      {/* Settled because the turn that asked ended: nobody rejected it, so no "by" and no badge saying rejected. */}
      <span class={`badge ${approval.status === 'approved' ? 'done' : approval.cancelled ? 'cancelled' : 'error'}`}>
        {approval.cancelled ? 'cancelled' : approval.status}
      </span>{' '}
      <code>{visibleText(approval.tool)}</code> <span class="muted">{oneLine(approval.input)}</span> for{' '}
      {visibleText(displayName(participants, approval.requester))}
      {approval.cancelled ? (
        <span class="muted">: the turn that asked ended before anyone decided</span>
      ) : (
        <>
          {approval.decidedBy && <span class="muted"> by {visibleText(displayName(participants, approval.decidedBy))}</span>}
          {approval.decisionReason && <span class="muted">: {visibleText(approval.decisionReason)}</span>}
        </>
      )}
    </li>
  );
}

/** Pending requests first, each with what it would do and the chain it climbed; decided ones below. */
export function Approvals({
  approvals,
  participants = [],
  onDecide,
}: {
  approvals: ApprovalView[];
  /** For names and colours; an id not among them shows as itself. */
  participants?: readonly Person[];
  onDecide: Decide;
}) {
  const pending = approvals.filter((approval) => approval.status === 'pending');
  const { staged, error, stage, waitingFor } = useApprovalDecisions(pending, onDecide);
  const decided = approvals.filter((approval) => approval.status !== 'pending').reverse();
  return (
    <section class="panel" data-testid="view-approvals">
      <h2>Approvals</h2>
      {pending.length === 0 ? (
        <p class="muted" data-testid="approvals-empty">
          Nothing waits for approval.
        </p>
      ) : (
        <ul class="cards" data-testid="approvals-pending" aria-live="polite" aria-relevant="additions">
          {pending.map((approval) => (
            <PendingApproval
              key={approval.id}
              approval={approval}
              participants={participants}
              staged={staged[approval.id]}
              waitingFor={waitingFor(approval)}
              onStage={(answer) => void stage(approval, answer)}
            />
          ))}
        </ul>
      )}
      {error && (
        <p class="error" data-testid="approvals-error">
          {error}
        </p>
      )}
      <h3>History</h3>
      <ul class="history" data-testid="approvals-history">
        {decided.map((approval) => (
          <DecidedApproval key={approval.id} approval={approval} participants={participants} testId={`approval-decided-${approval.id}`} />
        ))}
      </ul>
    </section>
  );
}
