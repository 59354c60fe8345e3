import { useState } from 'preact/hooks';
import type { ApprovalView } from '../api/wire.js';
import { diffOf } from './diff-of.js';
import { pretty } from './format.js';

type Decide = (answers: Array<{ id: string; decision: 'approve' | 'reject'; reason?: string; remember?: 'once' | 'always' }>) => Promise<string | null>;

function Diff({ patch }: { patch: string }) {
  return (
    <pre class="diff" data-testid="approval-diff">
      {patch.split('\n').map((line, index) => (
        <span key={index} class={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : ''}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function PendingApproval({ approval, onDecide }: { approval: ApprovalView; onDecide: Decide }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const patch = diffOf(approval.tool, approval.input);
  const decide = async (decision: 'approve' | 'reject', remember?: 'always') => {
    setError(await onDecide([{ id: approval.id, decision, ...(remember ? { remember } : {}), ...(decision === 'reject' && reason.trim() !== '' ? { reason: reason.trim() } : {}) }]));
  };
  return (
    <li class="card approval" data-testid={`approval-${approval.id}`} data-tool={approval.tool}>
      <div class="meta">
        <strong>{approval.requester}</strong> wants to run <code>{approval.tool}</code>
        <span class="muted"> · asks {approval.approver}</span>
      </div>
      <div class="chain" data-testid="approval-chain">
        {[...approval.chain, approval.requester].map((id, index) => (
          <span key={index}>
            {index > 0 && ' → '}
            <span class="tag">{id}</span>
          </span>
        ))}
      </div>
      {approval.reason && <p class="muted">{approval.reason}</p>}
      {patch !== null ? <Diff patch={patch} /> : <pre data-testid="approval-input">{pretty(approval.input)}</pre>}
      <div class="row">
        <button type="button" data-testid={`approve-${approval.id}`} onClick={() => void decide('approve')}>
          Approve once
        </button>
        <button type="button" data-testid={`approve-always-${approval.id}`} onClick={() => void decide('approve', 'always')}>
          Approve always
        </button>
        <input value={reason} placeholder="Reason for rejecting" data-testid={`reject-reason-${approval.id}`} onInput={(event) => setReason(event.currentTarget.value)} />
        <button type="button" class="danger" data-testid={`reject-${approval.id}`} onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
      {error && <p class="error">{error}</p>}
    </li>
  );
}

/** Pending requests first, each with what it would do and the chain it climbed; decided ones below. */
export function Approvals({ approvals, onDecide }: { approvals: ApprovalView[]; onDecide: Decide }) {
  const pending = approvals.filter((approval) => approval.status === 'pending');
  const decided = approvals.filter((approval) => approval.status !== 'pending').reverse();
  return (
    <section class="panel" data-testid="view-approvals">
      <h2>Approvals</h2>
      {pending.length === 0 ? (
        <p class="muted" data-testid="approvals-empty">
          Nothing waits for approval.
        </p>
      ) : (
        <ul class="cards" data-testid="approvals-pending">
          {pending.map((approval) => (
            <PendingApproval key={approval.id} approval={approval} onDecide={onDecide} />
          ))}
        </ul>
      )}
      <h3>History</h3>
      <ul class="history" data-testid="approvals-history">
        {decided.map((approval) => (
          <li key={approval.id} data-testid={`approval-decided-${approval.id}`} data-status={approval.status}>
            <span class={`badge ${approval.status === 'approved' ? 'done' : 'error'}`}>{approval.status}</span> <code>{approval.tool}</code> for {approval.requester}
            {approval.decidedBy && <span class="muted"> by {approval.decidedBy}</span>}
            {approval.decisionReason && <span class="muted">: {approval.decisionReason}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
