/**
 * One line per built-in tool, beside its full description: what a small model
 * (`toolSchemas: 'compact'`) reads until it loads the full schema with
 * `load_tools`, and what the catalogue of families says. Kept here rather than
 * in each tool's file so that the compact view of all of them reads as one.
 */
export const BUILTIN_TOOL_SUMMARIES: Readonly<Record<string, string>> = {
  communicate: 'Message a participant and get their reply (delegate work, ask a question).',
  file_read: 'Read a workspace text file (numbered lines; offset/limit to page).',
  file_write: 'Create or overwrite a workspace text file.',
  file_edit: 'Replace one exact string in a workspace file.',
  file_list: 'List a workspace folder (recursive optional).',
  file_delete: 'Delete a workspace file, link or folder.',
  file_glob: 'Find workspace files by glob pattern.',
  file_grep: 'Search workspace file contents by regular expression.',
  shell_run: 'Run a shell command in the workspace and wait for its output.',
  process_start: 'Start a background shell command; returns its id.',
  process_poll: 'Get new output and state of a background process.',
  process_stop: 'Stop a background process.',
  process_list: 'List background processes.',
  todo_write: 'Replace your todo list (send the whole list).',
  todo_read: 'Show your todo list.',
  scratch_add: 'Add a note to your scratchbook (survives compaction).',
  scratch_read: 'Read your scratchbook notes.',
  scratch_update: 'Replace the text of a note.',
  scratch_complete: 'Mark a note done.',
  scratch_pin: 'Pin a note.',
  scratch_unpin: 'Unpin a note.',
  artifact_read: 'Read or grep a large tool result stored as an artifact (offset/limit, grep).',
  list_participants: 'List the participants of the collective.',
  get_participant: "Show one participant's full definition.",
  create_agent: 'Create a new agent in the collective.',
  modify_agent: 'Change fields of an existing agent.',
  retire_agent: 'Retire an agent from the active roster.',
  list_tools: 'List the tools you may use.',
  list_sessions: 'List the working sessions of this workspace.',
  list_conversations: 'List the conversations of a session.',
  search_history: 'Search the messages and tool results of a session.',
  approval_response: 'Approve or reject tool calls a delegate waits on.',
  list_approvals: 'List the approval requests of this session that concern you.',
};

/** What each family is for, one line each: the catalogue of tools an agent can load. */
export const BUILTIN_FAMILY_SUMMARIES: Readonly<Record<string, string>> = {
  files: 'read, write, edit, list, find and search workspace files',
  shell: 'run shell commands, and background processes',
  planning: 'your todo list',
  scratchbook: 'notes that survive compaction',
  artifacts: 'read back large tool results evicted from your context',
  collective: 'the participants, sessions and history of the collective',
  approvals: "answer and list delegates' approval requests",
};

/** The family of the approval tools, which Legion registers beside the families `createBuiltinTools` makes. */
export const APPROVAL_TOOL_FAMILY = 'approvals';
