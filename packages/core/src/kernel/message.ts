import { z } from 'zod';

/** Content blocks mirror Anthropic's; providers translate to and from this form. */
export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const ToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
/**
 * What a call that changed a file did to it, kept with its result so the history can show it
 * after the file has moved on (a `file_write` keeps nothing of what it replaced otherwise):
 * - `kept`: a unified diff (`--- a/path` / `+++ b/path`, three lines of context) from the file
 *   as it was to the file as the call left it, redacted as the result's text is;
 * - `not_kept`: why not (the file, or the diff, too large to keep; the file it replaced binary).
 * `action` says what the call did: the diff of a new file has only added lines, of a deleted one
 * only removed ones.
 */
export const KeptFileChangeSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('kept'),
    path: z.string().min(1),
    action: z.enum(['created', 'replaced', 'edited', 'deleted']),
    patch: z.string(),
  }),
  z.object({
    status: z.literal('not_kept'),
    path: z.string().min(1),
    action: z.enum(['created', 'replaced', 'edited', 'deleted']),
    reason: z.string(),
  }),
]);
/** What a call did to a file, kept with its result (`KeptFileChangeSchema`): the diff, or why it is not kept. */
export type KeptFileChange = z.infer<typeof KeptFileChangeSchema>;

export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  toolUseId: z.string().min(1),
  content: z.string(),
  isError: z.boolean().optional(),
  /** Set on the result of a successful call that changed a file (`file_write`, `file_edit`, `file_delete`). */
  fileChange: KeptFileChangeSchema.optional(),
});
export const ContentBlockSchema = z.discriminatedUnion('type', [TextBlockSchema, ToolUseBlockSchema, ToolResultBlockSchema]);

export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  /** Of `cacheWriteTokens`, those written for an hour (Anthropic's `ttl: "1h"`), which cost more than 5-minute ones. */
  cacheWrite1hTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * What became of a turn when it stopped running: the lifecycle's last word. `paused` is not an
 * ending: the turn waits on approvals or questions and goes on when they are answered.
 */
export const TurnOutcomeSchema = z.enum(['succeeded', 'failed', 'cancelled', 'paused']);
export type TurnOutcome = z.infer<typeof TurnOutcomeSchema>;

/**
 * How a turn ended without a reply, written in the responder's place as the
 * turn's last message: the next request shows the model plainly that the
 * message before it was not answered, and why, instead of merging it with the
 * next one (which made a model answer a cancelled request again).
 */
export const TurnEndingSchema = z.object({
  status: TurnOutcomeSchema.extract(['failed', 'cancelled']),
  /** The error's code (`cancelled`, `provider_bad_request`, `max_iterations`, …). */
  code: z.string(),
  /** What went wrong, as the turn reported it (absent for a plain cancel). */
  error: z.string().optional(),
  /**
   * Messages of the ended turn that later requests leave out (their place says so): the
   * provider refused the request that carried them, and sending them again would fail again.
   */
  withheld: z.array(z.string()).optional(),
});
export type TurnEnding = z.infer<typeof TurnEndingSchema>;

/** A remote agent's task as its last reply left it: `state` is A2A's (`completed`, `input-required`, …). */
export const RemoteTaskSchema = z.object({ taskId: z.string().optional(), contextId: z.string().optional(), state: z.string() });
export type RemoteTask = z.infer<typeof RemoteTaskSchema>;

/**
 * One message of a directional conversation. The initiator's messages and all
 * tool results have role `user`; the responder's have role `assistant`.
 */
export const MessageSchema = z.object({
  id: z.string().min(1),
  role: z.enum(['user', 'assistant']),
  content: z.array(ContentBlockSchema),
  /** ISO-8601 time the message was appended. */
  at: z.string(),
  usage: UsageSchema.optional(),
  /** Provider and model that produced an assistant message. */
  model: z.string().optional(),
  /** The surface (`terminal`, `web`, …) a user wrote this message on. */
  medium: z.string().optional(),
  /** Set on the note Legion writes as a turn's last message when the turn failed or was cancelled. */
  ending: TurnEndingSchema.optional(),
  /**
   * On a remote agent's reply (A2A): its task and context, kept with the conversation so that the next
   * message continues that context, and that task while it waits for input, across restarts too.
   */
  remoteTask: RemoteTaskSchema.optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export function textOf(message: Pick<Message, 'content'>): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

export function toolUsesOf(message: Pick<Message, 'content'>): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

export function toolResultsOf(message: Pick<Message, 'content'>): ToolResultBlock[] {
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}
