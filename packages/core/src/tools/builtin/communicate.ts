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
import { defineTool, type Tool } from '../tool.js';
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
  });

/**
 * Sends a message to another participant through the same path as the user's
 * messages and returns the reply. Depth, circular delegation, permissions and
 * busy conversations come back as error results the model can act on.
 */
export function createCommunicateTool(options: { collective: Collective; limitsFor: (callerId: string) => WorkspaceLimits }): Tool {
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
            },
          ],
          signal: context.signal,
          ifBusy: 'fail',
        });
        if (result.status === 'error') return { status: 'error', error: `${target.id} could not answer: ${result.error}` };
        if (result.status === 'paused')
          return { status: 'paused', requests: result.requests, ...(result.questions?.length ? { questions: result.questions } : {}) };
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
