import { z } from 'zod';

/**
 * One participant waiting on a turn. The delegation stack of a turn is a list
 * of these, outermost first, ending with the turn's sender; it is the only
 * record of who waits on whom, carried down by `communicate` and persisted
 * with every approval request, so a resume reads it instead of re-deriving it.
 *
 * An agent waits in a tool call: `toolUseId` is its `communicate` call in
 * `conversationId`, the conversation it answers. The participant that started
 * the chain with a plain message (a user, a program) waits in no tool call:
 * its frame has no `toolUseId`, and `conversationId` is where it sent.
 */
export const DelegationFrameSchema = z.lazy(() =>
  z.object({
    participantId: z.string(),
    conversationId: z.string(),
    toolUseId: z.string().optional(),
    /**
     * The W3C `traceparent` of the span this frame's participant waits in (its
     * communicate call's `execute_tool` span; for the frame that starts a chain,
     * the first turn's own span), written only while an OpenTelemetry SDK records:
     * the turn it waits on, resumed in any process, joins that trace. Older
     * records have none; older code drops it when it reads a record.
     */
    trace: z.string().optional(),
    /**
     * On the frame that starts a chain: the id of the delegation tree its message begins, which
     * `limits.maxModelCallsPerMessage` and `limits.maxDelegationsPerMessage` bound as a whole. Older
     * records have none (their root conversation stands for the tree).
     */
    tree: z.string().optional(),
    /**
     * On the frame of a `communicate` call that isolated its delegate (`isolation: "worktree"`): the
     * worktree its turn works in, and every turn below it (they are part of its change). Carried
     * with the frames, so a turn resumed in any process finds its tree again. Older code drops it.
     */
    worktree: z.string().optional(),
  }),
);
export type DelegationFrame = z.infer<typeof DelegationFrameSchema>;
