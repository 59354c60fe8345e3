import { Legion, LegionError, type ApprovalAnswer, type Session, type TurnResult } from '@legion-collective/core';
import { approveChoiceOf } from '../approve-flags.js';
import { approvalSurface, TERMINAL_MEDIUM, type ApproveMode } from '../approval-prompt.js';
import { styleFor, type Style } from '../render/style.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inert, inertLine } from '../render/terminal-text.js';
import { describe, pauseLines, reportedStatus } from './pause-lines.js';

interface ApprovalOptions {
  workspace?: string;
  session?: string;
  all?: boolean;
  json?: boolean;
}

async function open(options: ApprovalOptions): Promise<{ legion: Legion; session: Session }> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  const session = options.session ? await legion.sessions.get(options.session) : await legion.sessions.latest();
  if (!session) throw new LegionError('no_session', 'There are no sessions yet, so nothing waits for approval.');
  return { legion, session };
}

/** `legion approvals`: what waits for a decision (or, with --all, every decision made). */
export async function approvalsCommand(options: ApprovalOptions): Promise<number> {
  const { legion, session } = await open(options);
  const views = await session.approvals.list(options.all ? {} : { status: 'pending' });
  await legion.close();
  if (options.json) {
    stdout.json({ sessionId: session.id, approvals: views });
    return 0;
  }
  if (views.length === 0) {
    stdout.write(options.all ? 'No approval requests in this session.\n' : 'Nothing is waiting for approval.\n');
    return 0;
  }
  const style = styleFor(process.stdout);
  for (const view of views) stdout.write(`${describe(view, style)}\n`);
  if (views.some((view) => view.status === 'pending'))
    stdout.write(
      style.dim('\nAnswer with: legion approve ID… [--this-session | --rule [--pattern GLOB]]  or  legion reject ID… --reason "…"\n'),
    );
  return 0;
}

/** `legion approve` / `legion reject`: records the decisions as the user and resumes what waited on them. */
export async function answerCommand(
  decision: 'approve' | 'reject',
  ids: string[],
  options: ApprovalOptions & {
    reason?: string;
    thisSession?: boolean;
    always?: boolean;
    rule?: boolean;
    pattern?: string;
    as?: string;
    approve?: ApproveMode;
    resume?: boolean;
  },
): Promise<number> {
  const flags = approveChoiceOf(options);
  if (!flags.ok) throw new LegionError('usage', flags.error);
  if (flags.deprecation) stderr.write(`legion: warning: ${flags.deprecation}\n`);
  const remember: Pick<ApprovalAnswer, 'remember' | 'pattern'> =
    flags.choice === 'once' ? {} : { remember: flags.choice, ...(flags.pattern !== undefined ? { pattern: flags.pattern } : {}) };
  const { legion, session } = await open(options);
  const surface = approvalSurface(
    options.approve ?? legion.config.approval.headless,
    { interactive: process.stdin.isTTY === true && process.stderr.isTTY === true, input: process.stdin, output: process.stderr },
    legion.approvalRules,
  );
  if (surface) legion.attachUser(surface);
  const decidedBy = options.as ?? legion.collective.defaultUser()?.id;
  if (!decidedBy) throw new LegionError('no_user', 'The collective has no user participant to decide as; pass --as.');
  try {
    const outcome = await session.answerApprovals(
      ids.map((id) => ({ id, decision, ...(options.reason ? { reason: options.reason } : {}), ...remember })),
      decidedBy,
      // --no-resume: only recorded; `legion approvals resume` continues the turn, from any process.
      { medium: TERMINAL_MEDIUM, resume: options.resume !== false },
    );
    if (outcome.status === 'error') throw new LegionError('approval_invalid', outcome.error);
    const continuing = outcome.continuing ?? [];
    const waiting = outcome.waiting ?? [];
    if (options.json) {
      stdout.write(
        `${JSON.stringify({ sessionId: session.id, resumed: outcome.resumed.map((result) => ({ ...result, status: reportedStatus(result) })), ...(continuing.length > 0 ? { continuing } : {}), ...(waiting.length > 0 ? { waiting } : {}) })}\n`,
      );
    } else {
      for (const result of outcome.resumed) stdout.write(`${describeResult(result, styleFor(process.stdout))}\n`);
      // Its turn still runs in another process (a REPL, legion serve): that process goes on with the decision.
      for (const conversationId of continuing)
        stdout.write(`Recorded; the turn running in ${conversationId} (another process) goes on with it.\n`);
      for (const conversationId of waiting)
        stdout.write(
          `Recorded; the turn in ${conversationId} stays paused until resumed: legion approvals resume --session ${session.id}\n`,
        );
    }
    return exitForResumed(outcome.resumed, options.json === true, session.id);
  } finally {
    await legion.close();
  }
}

/**
 * `legion approvals resume`: continues the turns whose approvals were decided but not resumed
 * (`legion approve --no-resume`, or an answering process that ended first), each once.
 */
export async function resumeCommand(ids: string[], options: ApprovalOptions & { approve?: ApproveMode }): Promise<number> {
  const { legion, session } = await open(options);
  // A resumed turn may ask again: the same surface `legion approve` offers.
  const surface = approvalSurface(
    options.approve ?? legion.config.approval.headless,
    { interactive: process.stdin.isTTY === true && process.stderr.isTTY === true, input: process.stdin, output: process.stderr },
    legion.approvalRules,
  );
  if (surface) legion.attachUser(surface);
  try {
    const outcome = await session.resumeDecided({ ids });
    if (outcome.status === 'error') throw new LegionError('approval_invalid', outcome.error);
    const continuing = outcome.continuing ?? [];
    if (options.json) {
      stdout.json({
        sessionId: session.id,
        resumed: outcome.resumed.map((result) => ({ ...result, status: reportedStatus(result) })),
        ...(continuing.length > 0 ? { continuing } : {}),
      });
    } else {
      for (const result of outcome.resumed) stdout.write(`${describeResult(result, styleFor(process.stdout))}\n`);
      for (const conversationId of continuing)
        stdout.write(`The turn in ${conversationId} went on in another process; nothing to resume here.\n`);
      if (outcome.resumed.length === 0 && continuing.length === 0)
        stdout.write('Nothing waits to be resumed: no decided approval has a paused turn left.\n');
    }
    return exitForResumed(outcome.resumed, options.json === true, session.id);
  } finally {
    await legion.close();
  }
}

/**
 * The exit status once turns were resumed: 1 when one failed; 2, like `legion run`, when one paused
 * again on a new approval (so a script does not take it as done), saying how to answer; else 0.
 */
function exitForResumed(resumed: readonly TurnResult[], json: boolean, sessionId: string): number {
  if (resumed.some((result) => result.status === 'error')) return 1;
  const paused = resumed.filter((result) => result.status === 'paused');
  if (paused.length > 0) {
    if (!json) stderr.write(pauseLines(paused, styleFor(process.stderr), sessionId));
    return 2;
  }
  return 0;
}

function describeResult(result: TurnResult, style: Style): string {
  if (result.status === 'success') return inert(result.reply);
  if (result.status === 'error') return style.red(`${inertLine(result.conversationId)} failed: ${inert(result.error)}`);
  return `Still waiting for approval:\n${result.requests.map((view) => `  ${describe(view, style)}`).join('\n')}`;
}
