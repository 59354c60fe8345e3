import { z } from 'zod';
import type { SessionAgentState } from '../../../store/index.js';

export const LOADED_TOOLS_FORMAT_VERSION = 1;

/** The agent-state kind: `.legion/sessions/<session>/loaded-tools/<agent>.json` with the file backend. */
export const LOADED_TOOLS_KIND = 'loaded-tools';

/**
 * What an agent loaded with `load_tools`, per conversation: family names
 * (`files`, `mcp__github`) and tool names. Kept in the session beside its todos,
 * so a resumed turn (another process, after a pause on approvals) offers what
 * was loaded, and a family that gains tools (an MCP server's new listing)
 * offers them too.
 */
export const LoadedToolsFileSchema = z.lazy(() =>
  z.object({
    version: z.literal(LOADED_TOOLS_FORMAT_VERSION),
    agentId: z.string(),
    conversations: z.record(z.string(), z.array(z.string())),
  }),
);
export type LoadedToolsFile = z.infer<typeof LoadedToolsFileSchema>;

/** The names loaded in one conversation (none when nothing was, or the file cannot be read: the tools stay callable). */
export async function readLoadedTools(state: SessionAgentState, agentId: string, conversationId: string): Promise<ReadonlySet<string>> {
  try {
    const file = await state.get(LOADED_TOOLS_KIND, agentId, LoadedToolsFileSchema);
    return new Set(file?.conversations[conversationId] ?? []);
  } catch {
    return new Set();
  }
}

/** Adds names to a conversation's loaded set, one update at a time; resolves to the set after it. */
export function addLoadedTools(
  state: SessionAgentState,
  agentId: string,
  conversationId: string,
  names: readonly string[],
): Promise<ReadonlySet<string>> {
  return state.update(LOADED_TOOLS_KIND, agentId, LoadedToolsFileSchema.optional().catch(undefined), (current) => {
    const loaded = new Set([...(current?.conversations[conversationId] ?? []), ...names]);
    const value: LoadedToolsFile = {
      version: LOADED_TOOLS_FORMAT_VERSION,
      agentId,
      conversations: { ...current?.conversations, [conversationId]: [...loaded].sort() },
    };
    return { value, result: loaded };
  });
}
