/**
 * Every error code Legion gives, once, with what it means and where it is met. A code is a
 * promise to scripts and UIs (they branch on it, unlike on a message), so a new one is added here
 * first: `LegionError`, a turn's error outcome and the surfaces' refusals take only these.
 * docs/reference/error-codes.md is this table for readers (error-codes.test.ts keeps the two equal).
 */

/**
 * Where a code is met.
 * - `error`: the `code` of a `LegionError` (a library caller catches it; the CLI prints its message and exits 1).
 * - `turn`: why a turn failed or was cancelled: `TurnResult.code`, `turn:end`'s `code`, the ending written in the
 *   conversation, `legion run --output json`'s `code`, an MCP `ask_<agent>` error result. A `LegionError` thrown
 *   inside a turn ends it with its own code.
 * - `note`: an `info` note written in the conversation log.
 * - `event`: the `code` of an `error:raised` event (the REPL and the web app show it).
 * - `trace`: the status of an OpenTelemetry span (a turn's, a model call's).
 * - `api`: the `error.code` of a refusal of `legion serve`'s HTTP API.
 * - `mcp`: the `error.data.code` of a refusal of `legion mcp serve --http`.
 * - `web`: the browser app's own, for a refusal of the server that carried no code.
 */
export type ErrorCodeSurface = 'error' | 'turn' | 'note' | 'event' | 'trace' | 'api' | 'mcp' | 'web';

export interface ErrorCodeEntry {
  /** One line: what happened. */
  readonly meaning: string;
  readonly seen: readonly ErrorCodeSurface[];
  /** The HTTP status of its refusals (on `api`, `mcp`). */
  readonly status?: number;
  /**
   * How `legion serve` answers a request that meets it as a `LegionError`: the status, and the
   * API's code (`api`) it answers with. A `LegionError` without one is a 500 `internal`.
   */
  readonly served?: { readonly status: number; readonly as: string };
}

export const LEGION_ERROR_CODES = {
  agent_model_incomplete: { meaning: '`legion agents add` was given only one of --provider and --model.', seen: ['error'] },
  agent_needs_prompt: { meaning: '`legion agents add` was given no system prompt and no template to start from.', seen: ['error'] },
  already_answered: {
    meaning: 'The approval or question was answered before (elsewhere, or earlier): nothing was recorded.',
    seen: ['api'],
    status: 409,
  },
  answer_refused: {
    meaning: "A surface's answer failed its check (over the size limit): it is asked again, and after a few tries the surface has failed.",
    seen: ['error', 'event'],
  },
  answer_required: { meaning: 'The turn paused until a question to a user is answered.', seen: ['note'] },
  answered_elsewhere: {
    meaning: 'The abort reason of a surface whose question or approval another surface answered first.',
    seen: ['error'],
  },
  approval_invalid: {
    meaning: '`legion approvals` could not record or resume the decisions (an unknown, settled or foreign request id).',
    seen: ['error'],
  },
  approval_not_allowed: {
    meaning: 'The user may not approve that tool for that participant (its approvalAuthority), so may not make a rule for it.',
    seen: ['error'],
  },
  approval_required: { meaning: 'The turn paused until tool calls are approved or denied.', seen: ['note'] },
  approval_rule_invalid: {
    meaning: 'An "approve always" rule cannot be made from the answer (its pattern), or a rule file is unreadable.',
    seen: ['error', 'event'],
  },
  approval_rule_not_found: { meaning: 'No approval rule has that id.', seen: ['error'] },
  bad_json: { meaning: 'The body of a request to the MCP endpoint is not JSON.', seen: ['mcp'], status: 400 },
  bad_request: {
    meaning: "The request is not valid: its body or query fails the route's schema, or names what cannot be done.",
    seen: ['api'],
    status: 400,
  },
  cancelled: {
    meaning: 'The turn or the model call was stopped on purpose (Ctrl-C, Esc, a cancel request).',
    seen: ['error', 'turn', 'trace'],
  },
  circular_delegation: {
    meaning:
      'The delegate is already working on this request up the chain: messaging it would deadlock (the model gets this as a tool error).',
    seen: ['error'],
  },
  claim_not_found: {
    meaning: 'No running turn claims that file (`legion claims release`, the API): nothing was released.',
    seen: ['error', 'api'],
    status: 404,
    served: { status: 404, as: 'claim_not_found' },
  },
  claims_not_released: {
    meaning: 'A turn ended but the store failed to give its file claims back: they last until its process ends, or a person releases them.',
    seen: ['event'],
  },
  compaction_failed: {
    meaning: "Summarizing an agent's older context failed; the hard cap still keeps the request within the window.",
    seen: ['event'],
  },
  compaction_invalid: { meaning: 'A compaction would keep more messages than the context holds.', seen: ['error'] },
  config: {
    meaning:
      "`legion mcp serve`'s settings (mcpServe) do not fit the collective: no active agent, or a caller or exposed agent of the wrong kind.",
    seen: ['error'],
  },
  config_invalid: {
    meaning: 'A config or participant file is not valid; the message names the file, the field and the fix.',
    seen: ['error'],
  },
  config_key_invalid: {
    meaning: '`legion config` was given a key that is not a dotted path, or one that goes through a value that is not an object.',
    seen: ['error'],
  },
  config_key_unknown: { meaning: '`legion config get` found no value at that key.', seen: ['error'] },
  conflict_not_recorded: {
    meaning:
      "A refused write's conflict could not be written to its session's conflicts log: this process showed it, other processes following the session will not.",
    seen: ['event'],
  },
  context_overflow: {
    meaning: "The model request does not fit the agent's window even cut to its newest turn; nothing was sent.",
    seen: ['error', 'turn'],
  },
  conversation_busy: {
    meaning: 'Another message is being answered in that conversation (here or in another process).',
    seen: ['error', 'api'],
    status: 409,
    served: { status: 409, as: 'conversation_busy' },
  },
  conversation_paused: {
    meaning: 'The conversation waits on approvals or questions: answer them before sending into it.',
    seen: ['error'],
  },
  copy_conflict: {
    meaning: 'A session copy met a conflict: a record settled twice in the source, or a conversation held at the target.',
    seen: ['error'],
  },
  copy_mismatch: { meaning: '`legion store copy` read back a session that differs from its source.', seen: ['error'] },
  database_unreachable: {
    meaning: "The workspace's PostgreSQL database could not be used (down, refused, or the URL is wrong).",
    seen: ['error'],
  },
  delegation_not_allowed: {
    meaning: 'The participant may not communicate with that one (the model gets this as a tool error).',
    seen: ['error'],
  },
  duplicate_participant: { meaning: 'Two participants have the same id.', seen: ['error'] },
  duplicate_tool: { meaning: 'A tool of that name is already registered.', seen: ['error'] },
  duplicate_tool_provider: { meaning: 'A tool provider of that id is already registered.', seen: ['error'] },
  editor_failed: { meaning: 'The editor ($EDITOR) could not start, or exited with a failure; nothing was changed.', seen: ['error'] },
  forbidden_origin: {
    meaning: "A web page of another origin called the server; only the server's own pages (for MCP: no page) may.",
    seen: ['api', 'mcp'],
    status: 403,
  },
  format_too_new: { meaning: 'A conversation log was written by a newer Legion (a format this one does not read).', seen: ['error'] },
  http_error: { meaning: 'The server refused a request of the browser app without saying why (no error body).', seen: ['web'] },
  internal: {
    meaning: 'The server failed on a request through no fault of the request; its error:raised event says more.',
    seen: ['api'],
    status: 500,
  },
  invalid_artifact_name: { meaning: 'An artifact name has characters or a length storage does not allow.', seen: ['error'] },
  invalid_claim: { meaning: 'A claim was made on a record log that records none (the usage log is only appended to).', seen: ['error'] },
  invalid_cursor: { meaning: 'A log cursor was not made by this storage backend.', seen: ['error'] },
  invalid_id: {
    meaning: 'An id (a conversation id, a participant or conversation name, a state kind) is not well formed.',
    seen: ['error'],
    served: { status: 400, as: 'bad_request' },
  },
  invalid_option: {
    meaning: "`legion store copy`'s --from or --to is missing, names no store, or names the same store twice.",
    seen: ['error'],
  },
  invalid_participant_id: { meaning: 'A participant id has characters or a length that is not allowed.', seen: ['error'] },
  invalid_session_id: { meaning: 'A session id has characters or a length that is not allowed.', seen: ['error'] },
  invalid_template_name: { meaning: 'An agent template name has characters that are not allowed.', seen: ['error'] },
  lease_lost: {
    meaning: "Another holder took over the conversation's lock after this process let it expire: nothing more of the turn was written.",
    seen: ['error', 'turn', 'event'],
  },
  lease_not_held: {
    meaning:
      "Something was to be written to a conversation outside a turn that holds its lease (a Legion bug, or a library caller's misuse).",
    seen: ['error'],
  },
  lock_already_held: { meaning: 'This process asked again for a file lock it already holds.', seen: ['error'] },
  lock_timeout: { meaning: 'A file lock held by another process was not released in time.', seen: ['error'] },
  log_lost_entries: {
    meaning: 'The PostgreSQL database no longer holds log entries this process appended (restored from an older backup, or rolled back).',
    seen: ['error'],
  },
  max_depth: { meaning: 'The delegation chain reached limits.maxDepth (the model gets this as a tool error).', seen: ['error'] },
  max_iterations: {
    meaning: 'An agent reached limits.maxIterations model calls in one turn without a final reply.',
    seen: ['error', 'turn'],
  },
  mcp_elicitation_declined: { meaning: "An MCP server's request for input from the user was declined.", seen: ['event'] },
  mcp_env_missing: {
    meaning: "An MCP server's or a remote agent's setting refers to ${env:NAME}, and that environment variable is not set.",
    seen: ['error', 'turn'],
  },
  mcp_schema_invalid: { meaning: "An MCP tool's input schema does not compile: its inputs go to the server unchecked.", seen: ['event'] },
  mcp_sdk_missing: { meaning: 'MCP servers are configured, but the MCP client package is not installed.', seen: ['error'] },
  mcp_server_closed: { meaning: 'The MCP server was shut down (Legion is closing).', seen: ['error'] },
  mcp_server_exited: { meaning: 'An MCP server stopped unexpectedly.', seen: ['event'] },
  mcp_server_unavailable: { meaning: 'An MCP server could not be started, or could not list its tools.', seen: ['error', 'event'] },
  mcp_tool_limited: { meaning: "An MCP server's tools were cut or left out (too many, too large, or a clashing name).", seen: ['event'] },
  message_too_large: { meaning: 'A message is over limits.maxMessageBytes.', seen: ['error'], served: { status: 400, as: 'bad_request' } },
  message_work_limit: {
    meaning:
      'The message being answered started limits.maxModelCallsPerMessage model calls or limits.maxDelegationsPerMessage delegations across its delegation tree.',
    seen: ['error', 'turn'],
  },
  mock_no_match: { meaning: 'A mock participant has no response whose trigger matches the message, and no fallback.', seen: ['turn'] },
  model_failed: { meaning: "An agent's model call failed with an error that is not Legion's own.", seen: ['turn', 'trace'] },
  no_agents: { meaning: 'The collective has no agents.', seen: ['error'] },
  no_conversation: { meaning: 'The session has no conversation of that id.', seen: ['error'] },
  no_database: { meaning: '`legion store copy` has no PostgreSQL database configured to copy from or to.', seen: ['error'] },
  no_runtime: { meaning: 'No runtime answers participants of that type.', seen: ['error'] },
  no_session: {
    meaning: 'There is no session to act on: the workspace has none yet, or (MCP over HTTP) the request carries no Mcp-Session-Id.',
    seen: ['error', 'mcp'],
    status: 400,
  },
  no_user: { meaning: 'The collective has no user participant to act as, and none was named.', seen: ['error'] },
  no_workspace: { meaning: 'No .legion/ workspace was found where it was looked for.', seen: ['error'] },
  not_a_database: { meaning: 'A PostgreSQL command was run in a workspace that keeps its sessions in files.', seen: ['error'] },
  not_a_user: { meaning: 'Only a user makes "approve always" rules, and the one named is not a user.', seen: ['error'] },
  not_an_agent: {
    meaning: 'The participant named is not an agent, and only an agent has what was asked for (a model, a context, tools).',
    seen: ['error', 'api'],
    status: 400,
    served: { status: 400, as: 'not_an_agent' },
  },
  not_compactable: { meaning: "Only an agent's context is compacted, and the responder is not an agent.", seen: ['error'] },
  not_found: {
    meaning: 'Nothing is at that path, or the session, participant, conversation, question or request it names does not exist.',
    seen: ['api', 'mcp'],
    status: 404,
  },
  not_resumable: { meaning: 'A paused turn could not be resumed: its runtime cannot resume, or no answer waits for it.', seen: ['turn'] },
  participant_exists: { meaning: 'A participant file with that id exists already.', seen: ['error'] },
  participant_in_use: {
    meaning: 'The participant is still referred to (permissions, the entry agent): not removed without --force.',
    seen: ['error'],
  },
  participant_invalid: { meaning: 'A participant definition is not valid; the message names the field and the fix.', seen: ['error'] },
  participant_not_found: {
    meaning: 'No participant (or participant file) has that id.',
    seen: ['error'],
    served: { status: 404, as: 'not_found' },
  },
  payload_too_large: { meaning: "A request's body is over the limit for that request.", seen: ['api', 'mcp'], status: 413 },
  provider_auth: { meaning: 'The provider rejected the API key (401).', seen: ['error', 'turn'] },
  provider_bad_request: { meaning: 'The provider refused the request (400).', seen: ['error', 'turn'] },
  provider_bad_response: {
    meaning: 'The endpoint answered with something that is not a stream of events (an HTML page, JSON, nothing).',
    seen: ['error', 'turn'],
  },
  provider_context_too_long: { meaning: "The provider said the prompt is longer than the model's window.", seen: ['error', 'turn'] },
  provider_empty_response: { meaning: 'The model answered with nothing.', seen: ['error', 'turn'] },
  provider_error: { meaning: 'The provider call failed in a way Legion does not name more precisely.', seen: ['error', 'turn'] },
  provider_forbidden: { meaning: 'The provider denied access (403): the key may not use this model.', seen: ['error', 'turn'] },
  provider_key_not_bound: {
    meaning: "The provider's key would go to a base URL that is not its provider's endpoint: not sent.",
    seen: ['error', 'turn'],
  },
  provider_model_not_found: { meaning: 'The provider knows no such model or endpoint (404).', seen: ['error', 'turn'] },
  provider_no_base_url: { meaning: 'An openai-compatible model has no base URL.', seen: ['error', 'turn'] },
  provider_no_key: { meaning: "No API key is set for the model's provider.", seen: ['error', 'turn'] },
  provider_quota: {
    meaning: "The provider's account has no credit or quota left (billing, not a rate limit): not retried.",
    seen: ['error', 'turn'],
  },
  provider_rate_limited: {
    meaning: 'The provider rate-limited the call (429), or asked to wait longer than Legion waits.',
    seen: ['error', 'turn'],
  },
  provider_sdk_missing: { meaning: "The provider's SDK package is not installed.", seen: ['error', 'turn'] },
  provider_stalled: { meaning: 'The response sent nothing for providers.*.idleTimeoutMs.', seen: ['error', 'turn'] },
  provider_stream_interrupted: { meaning: 'The response broke off mid-stream.', seen: ['error', 'turn'] },
  provider_timeout: { meaning: 'No complete answer came within providers.*.timeoutMs, retries included.', seen: ['error', 'turn'] },
  provider_unavailable: { meaning: 'The provider failed (5xx).', seen: ['error', 'turn'] },
  provider_unknown: { meaning: 'The model names a provider Legion does not know.', seen: ['error', 'turn'] },
  provider_unreachable: { meaning: "The provider's endpoint could not be connected to.", seen: ['error', 'turn'] },
  question_not_answered: {
    meaning: '`legion questions answer` could not record the answer (an unknown, settled or withdrawn question).',
    seen: ['error'],
  },
  question_not_resumed: { meaning: '`legion questions resume` could not continue the turns of answered questions.', seen: ['error'] },
  remote_task_failed: {
    meaning: "A remote agent's task ended failed, rejected or cancelled on its side, or without an answer.",
    seen: ['turn'],
  },
  remote_timeout: { meaning: 'A remote agent sent nothing for limits.toolTimeoutMs.', seen: ['turn'] },
  remote_too_large: { meaning: "A remote agent's response was over its bound (a multiple of limits.maxReplyBytes).", seen: ['turn'] },
  remote_unreachable: { meaning: 'A remote agent (A2A), or its card, could not be reached or read.', seen: ['error', 'turn'] },
  remote_url_refused: {
    meaning: "A remote agent's card or a redirect named a URL that is not http or https, or redirected too often.",
    seen: ['error', 'turn'],
  },
  reply_too_large: { meaning: "The model's reply is over limits.maxReplyBytes; nothing was added to the conversation.", seen: ['turn'] },
  runtime_failed: { meaning: "A participant's runtime failed with an error that is not Legion's own.", seen: ['turn'] },
  schema_too_new: { meaning: 'The PostgreSQL database has a Legion schema newer than this Legion knows.', seen: ['error'] },
  script_exhausted: { meaning: 'A ScriptedProvider was called after all its scripted steps were used.', seen: ['error', 'turn'] },
  script_unused: { meaning: 'A ScriptedProvider still has scripted steps nobody called for.', seen: ['error'] },
  self_message: {
    meaning: 'A participant tried to send a message to itself.',
    seen: ['error'],
    served: { status: 400, as: 'bad_request' },
  },
  session_budget_exceeded: {
    meaning: 'The session reached limits.maxSessionCostUsd or limits.maxSessionTokens: no new model call starts in it.',
    seen: ['error', 'turn'],
  },
  session_busy: { meaning: 'The session is in use: one of its conversations is held by a turn.', seen: ['error'] },
  session_conflict: {
    meaning: '`legion store copy` found a different session under the same id in the target store; nothing was copied.',
    seen: ['error'],
  },
  session_exists: { meaning: 'The session to copy exists at the target already.', seen: ['error'] },
  session_not_found: { meaning: 'No session has that id.', seen: ['error'], served: { status: 404, as: 'not_found' } },
  storage_backend_required: {
    meaning: 'The workspace keeps its sessions in PostgreSQL, which Legion.open does not load: pass the backend.',
    seen: ['error'],
  },
  surface_declined: { meaning: 'A surface does not answer that question or approval (it is not its to answer).', seen: ['error'] },
  surface_detached: { meaning: 'The abort reason of a surface that was detached while it was asked.', seen: ['error'] },
  template_not_found: { meaning: 'No agent template has that name.', seen: ['error'] },
  too_many_sessions: { meaning: 'The MCP server has mcpServe.maxSessions sessions open.', seen: ['mcp'], status: 503 },
  tool_provider_problem: { meaning: 'A tool provider failed to give its tools.', seen: ['event'] },
  turn_failed: { meaning: "A turn failed with an error that is not Legion's own.", seen: ['trace'] },
  unauthorized: { meaning: 'The request has no valid access token.', seen: ['api', 'mcp'], status: 401 },
  unknown_session: {
    meaning: 'The request names an MCP session that ended, expired or belongs to an earlier server.',
    seen: ['mcp'],
    status: 404,
  },
  unsupported_media_type: {
    meaning: 'A request with a body did not send it as JSON (Content-Type).',
    seen: ['api'],
    status: 415,
  },
  usage: {
    meaning: 'A command or call was used wrongly: options that conflict, a missing or malformed argument, a missing confirmation.',
    seen: ['error'],
  },
  user_surface_failed: { meaning: 'A user surface failed while asking its user; the others are still asked.', seen: ['event'] },
  user_unavailable: {
    meaning: 'No surface could ask the user (none attached, or all failed): the asking agent is told to assume and go on.',
    seen: ['turn'],
  },
  worktree_refused: {
    meaning:
      'A worktree command could not act: no such worktree, its turn still runs, git failed, or applying found conflicts (nothing was applied).',
    seen: ['error'],
  },
  wrong_host: {
    meaning: "The request's Host is not the server's own (DNS rebinding, or a wrong URL).",
    seen: ['api', 'mcp'],
    status: 421,
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/** A code of the catalogue: what `LegionError`, a turn's error outcome and the surfaces' refusals take. */
export type LegionErrorCode = keyof typeof LEGION_ERROR_CODES;
