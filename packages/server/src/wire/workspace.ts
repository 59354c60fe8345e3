import { z } from 'zod';

/** `GET /api/workspace`: which workspace this server runs over. */
export const WorkspaceInfoSchema = z.object({
  /** Absolute path of the workspace root (the directory holding `.legion/`). */
  root: z.string(),
  /** The agent that takes the user's messages; null when the collective has no agent. */
  entryAgent: z.string().nullable(),
  /** The user participant messages are sent from by default; null when the collective has none. */
  user: z.string().nullable(),
  /** Version of the server package. */
  version: z.string(),
  /** The latest session (the one `legion` would resume), or null when there is none yet. */
  sessionId: z.string().nullable(),
});
export type WorkspaceInfo = z.infer<typeof WorkspaceInfoSchema>;

/**
 * `GET /api/config`: the resolved config (defaults → global → workspace) with every secret
 * replaced by `"[redacted]"`. Its shape is core's config; clients read what they know of it.
 */
export const ConfigViewSchema = z.object({
  config: z.record(z.string(), z.unknown()),
  /** Dotted paths of the values that were redacted (`providers.anthropic.apiKey`, …). */
  redacted: z.array(z.string()),
});
export type ConfigView = z.infer<typeof ConfigViewSchema>;
