/**
 * The tools area: the tool shape, the registry and executor, the built-in tools (`builtin/`), child
 * processes, and the MCP and workspace tool providers (`providers/`).
 *
 * This file is the area's one entry: code outside `tools/` imports from here, never from a file of
 * it (`npm run lint`, rule `tools-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export { ToolExecutor, toResultBlock } from './ToolExecutor.js';
export type { CallOutcome, PreparedCall } from './ToolExecutor.js';
export { ToolRegistry } from './ToolRegistry.js';
export { withBuiltinParameters } from './builtin/builtin-parameters.js';
export { APPROVAL_TOOL_FAMILY } from './builtin/builtin-summaries.js';
export { COMMUNICATE_TOOL_NAME, createCommunicateTool } from './builtin/communicate.js';
export { WHOLE_LOG, conversationsStartedBy, sessionStartedBy, turnsOpenedBy } from './builtin/delegation-tree.js';
export type { StartedConversation } from './builtin/delegation-tree.js';
export { BUILTIN_PROVIDER_ID, registerBuiltinTools } from './builtin/index.js';
export { TodoFileSchema, renderTodos } from './builtin/planning/todo-list.js';
export { ScratchbookFileSchema } from './builtin/scratchbook/scratchbook.js';
export { ProcessRegistry } from './builtin/shell/ProcessRegistry.js';
export { catalogueLine } from './builtin/tool-loading/catalogue.js';
export { LOAD_TOOLS_DESCRIPTION, LOAD_TOOLS_TOOL_NAME, createLoadToolsTool } from './builtin/tool-loading/load-tools.js';
export type { LoadableTool } from './builtin/tool-loading/load-tools.js';
export { readLoadedTools } from './builtin/tool-loading/loaded-tools.js';
export { commandEnvironment } from './child-env.js';
export { CONTAINMENT_VARIABLE, containment } from './child-processes/containment.js';
export type { Containment, ContainmentKind } from './child-processes/containment.js';
export { BWRAP_VARIABLE } from './child-processes/containment.js';
export { DEFAULT_SANDBOX_SETTINGS, sandboxSupport, sandboxUse, describeConfinement } from './child-processes/sandbox.js';
export type { SandboxMode, SandboxSettings, SandboxSupport, SandboxUse } from './child-processes/sandbox.js';
export { hiddenLocations } from './child-processes/sandbox-profile.js';
export { describeReaped, reapLeftoverGroups } from './child-processes/process-records.js';
export { createMcpToolProvider } from './providers/mcp/McpToolProvider.js';
export type { McpServerProblem, McpToolProvider } from './providers/mcp/McpToolProvider.js';
export { checkElicitationContent } from './providers/mcp/elicitation.js';
export type {
  ElicitationField,
  ElicitationForm,
  ElicitationValue,
  McpElicitation,
  McpElicitationAnswer,
} from './providers/mcp/elicitation.js';
export { expandEnvReferences } from './providers/mcp/env-references.js';
export { probeMcpServer } from './providers/mcp/probe-mcp-server.js';
export type { McpProbeResult } from './providers/mcp/probe-mcp-server.js';
export type { ProvidedTool, ToolProvider } from './providers/tool-provider.js';
export { createWorkspaceToolProvider } from './providers/workspace/WorkspaceToolProvider.js';
export { inspectWorkspaceTools } from './providers/workspace/inspect-workspace-tools.js';
export type { WorkspaceToolsReport } from './providers/workspace/inspect-workspace-tools.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './providers/workspace/workspace-tool-schema.js';
export type { WorkspaceToolFile } from './providers/workspace/workspace-tool-schema.js';
export type { WorkspaceTool } from './providers/workspace/workspace-tool.js';
export { configSecretValues, createRedactor } from './redact.js';
export { compactToolDefinition, defineTool, toolDefinition } from './tool.js';
export { looksBinary } from './builtin/files/text-file.js';
export { applyEdit } from './builtin/files/file-edit.js';
export { Worktrees, REVIEW_DIFF_MAX_BYTES } from './worktrees/Worktrees.js';
export type { WorktreeResult } from './worktrees/Worktrees.js';
export { turnWorkspaceRoot, worktreeOfFrames, worktreeRoot } from './worktrees/worktree-root.js';
export { reviewResult } from './worktrees/worktree-review.js';
export { finishDirectWorktree, openDirectWorktree } from './worktrees/direct-worktree.js';
export { isolationProblems } from './worktrees/isolation-check.js';
export { WorktreeRecordSchema } from './worktrees/worktree-record.js';
export type { WorktreeEntry, WorktreeRecord, WorktreeState } from './worktrees/worktree-record.js';
export type { WorktreeChange, WorktreeFileChange } from './worktrees/worktree-change.js';
export type { ApplyOutcome, WorktreeConflict } from './worktrees/worktree-apply.js';
export type { CallerContext, Tool, ToolContext, ToolEffect, ToolResult } from './tool.js';
