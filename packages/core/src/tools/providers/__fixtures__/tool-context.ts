import { EventBus } from '../../../kernel/events/EventBus.js';
import type { ToolContext } from '../../tool.js';

/**
 * A context for calling a provider's tool directly. Workspace and MCP tools
 * read only the signal, the events and the workspace root; the session is a
 * stub that fails loudly if a tool ever reaches for it.
 */
export function toolContext(overrides: { signal?: AbortSignal; workspaceRoot?: string; events?: EventBus } = {}): ToolContext {
  const session = new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(`provider tools must not use the session (tried "${String(property)}")`);
      },
    },
  );
  const context = {
    callerId: 'tester',
    frames: [],
    conversation: { sessionId: 's1', conversationId: 'user__tester', initiator: 'user', responder: 'tester' },
    session,
    signal: overrides.signal ?? new AbortController().signal,
    events: overrides.events ?? new EventBus(),
    workspaceRoot: overrides.workspaceRoot,
    readable: () => true,
  };
  // The session stub stands in for whatever ToolSession grows into; these tools never touch it.
  return context as unknown as ToolContext;
}
