import { z } from 'zod';

/**
 * What a participant is doing now, derived by the server from the turn lifecycle: `thinking` (its
 * turn runs, the model is answering), `tool` (running a tool; `detail` names it), `delegate`
 * (waiting for a delegate's turn; `detail` names it), `approval` (waiting for you to decide an
 * approval; `detail` is the tool), `user` (waiting for your answer; on a user participant: you are
 * asked), `idle` (no turn open; `outcome`/`code` say how a last turn that failed or was cancelled ended).
 */
export const ParticipantStateNameSchema = z.enum(['idle', 'thinking', 'tool', 'delegate', 'approval', 'user']);

/** How an idle participant's last turn ended, when that is worth showing. */
export const TurnEndingOutcomeSchema = z.enum(['succeeded', 'failed', 'cancelled']);
export type ParticipantStateName = z.infer<typeof ParticipantStateNameSchema>;

export const ParticipantTypeSchema = z.enum(['user', 'agent', 'mock', 'a2a']);
export type ParticipantType = z.infer<typeof ParticipantTypeSchema>;

/** `GET /api/participants` → `{ participants: Participant[] }`. */
export const ParticipantSchema = z.object({
  id: z.string(),
  type: ParticipantTypeSchema,
  name: z.string().optional(),
  description: z.string().optional(),
  useFor: z.string().optional(),
  /** Agents only. */
  model: z.object({ provider: z.string(), model: z.string() }).optional(),
  /** Names of the tools its model is shown (agents; empty for others). */
  tools: z.array(z.string()),
  /** Participants it may `communicate` with. */
  delegatesTo: z.array(z.string()),
  /** Whether it takes the user's messages by default. */
  entry: z.boolean(),
  state: ParticipantStateNameSchema,
  /** The tool it runs (`tool`), the approval's tool (`approval`), … */
  detail: z.string().optional(),
  /** On the user, `user`: the participant who asks them (a question, or an approval). */
  askedBy: z.string().optional(),
  /** Where the state happens, when it is not idle. */
  sessionId: z.string().optional(),
  conversationId: z.string().optional(),
  /** Idle: how its last turn ended (`failed`, `cancelled`) and why (`code`). */
  outcome: TurnEndingOutcomeSchema.optional(),
  code: z.string().optional(),
});
export type Participant = z.infer<typeof ParticipantSchema>;

export const ParticipantListResponseSchema = z.object({ participants: z.array(ParticipantSchema) });
export type ParticipantListResponse = z.infer<typeof ParticipantListResponseSchema>;
