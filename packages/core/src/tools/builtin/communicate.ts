import { z } from 'zod';
import type { Collective, AgentParticipant, WorkspaceLimits } from '../../team/index.js';
import { delegationTargets } from '../../team/index.js';
import { waitingParticipants } from '../../session/index.js';
import {
  CircularDelegationError,
  ConversationBusyError,
  DelegationNotAllowedError,
  errorMessage,
  LegionError,
  MaxDepthError,
} from '../../kernel/index.js';
import { defineTool, type Tool, type ToolContext, type ToolResult } from '../tool.js';
import { Worktrees } from '../worktrees/Worktrees.js';
import { worktreeOfFrames } from '../worktrees/worktree-root.js';
import { reviewResult } from '../worktrees/worktree-review.js';
import { DelegateSlots } from './delegate-slots.js';

export const COMMUNICATE_TOOL_NAME = 'communicate';

const communicateInputSchema = () =>
  z.object({
    to: z.string().min(1).describe('Exact id of the participant to message.'),
    message: z.string().min(1).describe('What you want from them: the task, the context they need, and what to report back.'),
    conversation: z
      .string()
      .optional()
      .describe('Optional thread name, to keep a separate conversation with the same participant (letters, digits, "-", ".").'),
    isolation: z
      .enum(['worktree'])
      .optional()
      .describe(
        'Optional. "worktree": the agent works in its own git worktree of HEAD and cannot touch the main tree; its change comes back to you as a diff that a human applies. Not from inside a worktree.',
      ),
  });

/**
 * Sends a message to another participant through the same path as the user's
 * messages and returns the reply. Depth, circular delegation, permissions and
 * busy conversations come back as error results the model can act on.
 */
export function createCommunicateTool(options: {
  collective: Collective;
  limitsFor: (callerId: string) => WorkspaceLimits;
  /** The workspace root, where isolated delegations get their worktrees (`.legion/worktrees/`); none: isolation is refused. */
  workspaceRoot?: string | undefined;
}): Tool {
  // A conversation answers one message at a time, so its calls running now are those of one response.
  const slotsByConversation = new Map<string, DelegateSlots>();
  return defineTool({
    name: COMMUNICATE_TOOL_NAME,
    description:
      'Send a message to another participant (agent or human) and wait for their reply, which this tool returns. ' +
      'Use it to delegate work or ask a question. Several calls in one response run in parallel. ' +
      'You cannot message a participant that is already waiting on you (that would be circular).',
    input: communicateInputSchema,
    concurrent: true,
    effect: 'communicate',
    timeoutMs: 0,
    async execute(input, context) {
      const { collective } = options;
      const caller = collective.get(context.callerId);
      const target = collective.get(input.to);
      if (input.to === context.callerId) return { status: 'error', error: 'You cannot send a message to yourself.' };
      if (!target || target.status === 'retired') {
        const allowed = caller?.type === 'agent' ? delegationTargets(caller, collective).map((p) => p.id) : collective.ids();
        return { status: 'error', error: `No participant "${input.to}". You can message: ${allowed.join(', ') || '(nobody)'}.` };
      }
      if (caller?.type === 'agent') {
        const allowed = delegationTargets(caller as AgentParticipant, collective);
        if (!allowed.some((participant) => participant.id === target.id)) {
          return {
            status: 'error',
            error: new DelegationNotAllowedError(
              caller.id,
              target.id,
              allowed.map((p) => p.id),
            ).message,
          };
        }
      }
      const chain = [...waitingParticipants(context.frames), context.callerId];
      if (target.type !== 'user' && chain.includes(target.id)) {
        return { status: 'error', error: new CircularDelegationError(target.id, [...chain, target.id]).message };
      }
      const isolation = isolationOf(input.isolation, target, context, options.workspaceRoot);
      if (isolation.status === 'error') return isolation;
      const maxDepth = options.limitsFor(context.callerId).maxDepth;
      if (chain.length > maxDepth)
        return { status: 'error', error: new MaxDepthError(chain.length, maxDepth, [...chain, target.id]).message };
      const slotKey = `${context.session.id}\u0000${context.conversation.conversationId}`;
      let slots = slotsByConversation.get(slotKey);
      if (!slots) slotsByConversation.set(slotKey, (slots = new DelegateSlots(options.limitsFor(context.callerId).maxParallelDelegates)));
      // Only a call that has to wait is told about (events built then, not for every call).
      const about = () =>
        Object.assign({}, context.conversation, { participantId: context.callerId, toolUseId: context.toolUseId, to: target.id });
      let queuedAt: number | undefined;
      const slot = await slots.acquire(context.signal, (waiting) => {
        queuedAt = performance.now();
        context.events.emit('delegation:queued', Object.assign(about(), waiting));
      });
      if (slot === 'cancelled') {
        if (slots.idle) slotsByConversation.delete(slotKey);
        return {
          status: 'error',
          error: `Cancelled while waiting to message ${target.id}: all ${options.limitsFor(context.callerId).maxParallelDelegates} delegation slots were busy.`,
        };
      }
      if (queuedAt !== undefined)
        context.events.emit('delegation:dequeued', Object.assign(about(), { waitedMs: performance.now() - queuedAt }));
      try {
        // Counted once it has a slot, just before it is sent: a call cancelled in the queue started nothing.
        const overLimit = context.session
          .messageWork(context.frames)
          .startDelegation(context.callerId, options.limitsFor(context.callerId));
        if (overLimit) return { status: 'error', error: `${overLimit.message} Do the rest yourself, or answer with what you have.` };
        let worktree: { worktrees: Worktrees; id: string } | undefined;
        if (isolation.status === 'isolate') {
          const worktrees = new Worktrees(isolation.workspaceRoot);
          const made = await worktrees.create({
            agentId: target.id,
            callerId: context.callerId,
            sessionId: context.session.id,
            conversationId: context.conversation.conversationId,
            toolUseId: context.toolUseId,
          });
          if (!made.ok) return { status: 'error', error: `${target.id} cannot work in a worktree: ${made.error}` };
          worktree = { worktrees, id: made.record.id };
        }
        const result = await context.session.send({
          from: context.callerId,
          to: target.id,
          message: input.message,
          conversation: input.conversation,
          frames: [
            ...context.frames,
            {
              participantId: context.callerId,
              conversationId: context.conversation.conversationId,
              toolUseId: context.toolUseId,
              ...(context.traceparent ? { trace: context.traceparent } : {}),
              ...(worktree ? { worktree: worktree.id } : {}),
            },
          ],
          signal: context.signal,
          ifBusy: 'fail',
        });
        if (result.status === 'error') return { status: 'error', error: `${target.id} could not answer: ${result.error}` };
        if (result.status === 'paused')
          return { status: 'paused', requests: result.requests, ...(result.questions?.length ? { questions: result.questions } : {}) };
        if (worktree)
          return reviewResult({
            worktrees: worktree.worktrees,
            worktreeId: worktree.id,
            reply: result.reply,
            agentId: target.id,
            callerId: context.callerId,
            conversation: context.conversation,
            toolUseId: context.toolUseId,
            events: context.events,
          });
        return { status: 'success', data: result.reply };
      } catch (error) {
        if (error instanceof ConversationBusyError) return { status: 'error', error: error.message };
        if (error instanceof LegionError) return { status: 'error', error: error.message };
        return { status: 'error', error: `communicate failed: ${errorMessage(error)}` };
      } finally {
        slots.release();
        if (slots.idle) slotsByConversation.delete(slotKey);
      }
    },
  });
}

type Isolation = { status: 'shared' } | { status: 'isolate'; workspaceRoot: string } | Extract<ToolResult, { status: 'error' }>;

/**
 * Whether this delegation gets a worktree of its own. The rule: any caller that may message an
 * agent may isolate it (`isolation: "worktree"`), and an agent whose participant file says
 * `"isolation": "worktree"` always is, since isolation only narrows what the delegate can touch
 * and nothing it does lands before a human applies it. A caller already in a worktree cannot ask
 * for another (its delegates work in its tree: their change is part of its own, reviewed once);
 * an isolated participant it calls shares that tree.
 */
function isolationOf(
  requested: 'worktree' | undefined,
  target: { id: string; type: string; isolation?: 'worktree' | undefined },
  context: Pick<ToolContext, 'frames'>,
  workspaceRoot: string | undefined,
): Isolation {
  const wanted = requested === 'worktree' || target.isolation === 'worktree';
  if (!wanted) return { status: 'shared' };
  if (target.type !== 'agent') return { status: 'error', error: `Only an agent works in a worktree: ${target.id} is a ${target.type}.` };
  const current = worktreeOfFrames(context.frames);
  if (current !== undefined) {
    if (requested === undefined) return { status: 'shared' };
    return {
      status: 'error',
      error: `You already work in worktree "${current}", and your delegates work in it with you: call ${target.id} without isolation.`,
    };
  }
  if (workspaceRoot === undefined) return { status: 'error', error: 'No workspace: a worktree needs a workspace in a git repository.' };
  return { status: 'isolate', workspaceRoot };
}
