/**
 * The engine area: conversations and sessions (`conversation/`) and the runtimes that run their turns
 * (`runtime/`).
 *
 * This file is the area's one entry: code outside `engine/` imports from here, never from a file of
 * it (`npm run lint`, rule `engine-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export type { Session, SessionMessage } from './conversation/Session.js';
export { SessionStore, emitStorageWarning } from './conversation/SessionStore.js';
export { followSession } from './conversation/follow-session.js';
export type { FollowCursor, FollowOptions, Follower } from './conversation/follow-session.js';
export { followWorkspace } from './conversation/follow-workspace.js';
export type { FollowWorkspaceOptions, WorkspaceFollowPort, WorkspaceFollower } from './conversation/follow-workspace.js';
export { AgentRuntime } from './runtime/AgentRuntime.js';
export { MockRuntime } from './runtime/MockRuntime.js';
export { RuntimeRegistry } from './runtime/RuntimeRegistry.js';
export { A2aRuntime, remoteAccess } from './runtime/a2a/A2aRuntime.js';
export { describeRemoteAgent } from './runtime/a2a/agent-card.js';
export type { AgentCardSummary, RemoteAccess } from './runtime/a2a/agent-card.js';
export { sessionTokens } from './runtime/session-budget.js';
export { withSchemaTokens } from './runtime/tool-schema-tokens.js';
export { describeAgentTools } from './runtime/tool-views.js';
export type { AgentToolView, AgentToolsView, MissingTools, OnDemandFamily, ToolSchemaTokens } from './runtime/tool-views.js';
