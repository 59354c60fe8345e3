import { z } from 'zod';

/**
 * What `@legion` keeps in each chat result's metadata (VS Code hands it back in the chat's
 * history): the agents that took part, for the follow-ups, and, after `/to <agent>` alone,
 * the agent this chat talks to from then on.
 */
export const ChatResultMetadataSchema = z.object({
  participants: z.array(z.string()).catch([]),
  target: z.string().min(1).optional().catch(undefined),
});
export type ChatResultMetadata = z.infer<typeof ChatResultMetadataSchema>;

/**
 * The agent a chat's messages go to, from the metadata of its earlier results (oldest first):
 * the latest `/to <agent>` switch, or none (the entry agent) in a chat that never switched. The
 * choice lives in the chat's own history, so a new chat starts with the entry agent again.
 */
export function chatTarget(history: readonly unknown[]): string | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const parsed = ChatResultMetadataSchema.safeParse(history[index]);
    if (parsed.success && parsed.data.target !== undefined) return parsed.data.target;
  }
  return undefined;
}

/** The agents the follow-ups after a result offer to continue with (none for a result VS Code hands back in an unknown shape). */
export function followupAgents(metadata: unknown): string[] {
  const parsed = ChatResultMetadataSchema.safeParse(metadata);
  return parsed.success ? parsed.data.participants : [];
}
