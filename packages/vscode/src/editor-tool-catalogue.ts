/**
 * What Legion offers the editor's own agents (`vscode.lm.registerTool`). VS Code takes only tools
 * declared in package.json (`contributes.languageModelTools`), so this list and the declarations
 * made from it are fixed at build time; editor-tool-declarations.test.ts checks package.json
 * against them (`npx vitest run packages/vscode/src/editor-tool-declarations.test.ts -u` rewrites it).
 */

/** Every editor tool's name starts with this, so the editor's tool picker groups them. */
export const EDITOR_TOOL_PREFIX = 'legion_';

/**
 * Built-in tools offered one by one, as `legion_<name>`: the workspace's files and shell, and
 * read-only views of the collective and its history. Left to `legion_call_tool`: the roster
 * changes (`create_agent`, …) and an agent's own notes and processes, which the editor's agent
 * rarely needs and which would crowd the editor's limited tool list.
 */
export const EDITOR_BUILTIN_TOOLS = [
  'file_read',
  'file_write',
  'file_edit',
  'file_delete',
  'file_list',
  'file_glob',
  'file_grep',
  'shell_run',
  'list_participants',
  'get_participant',
  'list_sessions',
  'list_conversations',
  'search_history',
] as const;

/**
 * Tools the editor's agent may not run by any route, with why. Its calls act as the user, so
 * `approval_response` would let a model approve delegates' calls in the user's name.
 */
export const NOT_FOR_EDITOR: ReadonlyMap<string, string> = new Map([
  [
    'approval_response',
    "approvals are the user's to give (in the chat, the Pending Approvals view or a terminal), never a model's in their name",
  ],
  ['communicate', 'to give an agent a task, use legion_run_agent'],
  // As the user it lists nothing (a user has no tool grants); legion_list_tools lists what the editor may call.
  ['list_tools', 'legion_list_tools lists the tools the editor can run'],
]);

export const RUN_AGENT_TOOL = `${EDITOR_TOOL_PREFIX}run_agent`;
export const LIST_TOOLS_TOOL = `${EDITOR_TOOL_PREFIX}list_tools`;
export const CALL_TOOL_TOOL = `${EDITOR_TOOL_PREFIX}call_tool`;

/** The Legion tool an offered built-in stands for (`legion_file_read` → `file_read`), if it is one. */
export function builtinFor(editorToolName: string): string | undefined {
  const name = editorToolName.startsWith(EDITOR_TOOL_PREFIX) ? editorToolName.slice(EDITOR_TOOL_PREFIX.length) : undefined;
  return name !== undefined && (EDITOR_BUILTIN_TOOLS as readonly string[]).includes(name) ? name : undefined;
}
