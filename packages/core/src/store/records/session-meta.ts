import { z } from 'zod';

export const SESSION_FORMAT_VERSION = 1;

export const SessionMetaSchema = z.object({
  version: z.number().int().positive(),
  id: z.string().min(1),
  createdAt: z.string(),
  /** When a top-level message (from a user or an API caller) last arrived. */
  lastActiveAt: z.string(),
  title: z.string().optional(),
});
export type SessionMeta = z.infer<typeof SessionMetaSchema>;
