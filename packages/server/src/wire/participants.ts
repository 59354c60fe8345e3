import { z } from 'zod';

/**
 * What a participant is doing now, derived by the server from events: `thinking` (its turn
 * runs, the model is answering), `tool` (running a tool; `detail` names it), `approval` (waiting
 * for an approval decision), `user` (a user participant is asked a question / waiting for you).
 */
export const ParticipantStateNameSchema = z.enum(['idle', 'thinking', 'tool', 'approval', 'user']);
export type ParticipantStateName = z.infer<typeof ParticipantStateNameSchema>;

export const ParticipantTypeSchema = z.enum(['user', 'agent', 'mock']);
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
  /** Where the state happens, when it is not idle. */
  sessionId: z.string().optional(),
  conversationId: z.string().optional(),
});
export type Participant = z.infer<typeof ParticipantSchema>;

export const ParticipantListResponseSchema = z.object({ participants: z.array(ParticipantSchema) });
export type ParticipantListResponse = z.infer<typeof ParticipantListResponseSchema>;
