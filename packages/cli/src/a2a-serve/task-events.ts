import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { z } from 'zod';

/** The task and context an event belongs to. */
export interface TaskIds {
  taskId: string;
  contextId: string;
}

/** The id of the artifact that holds the agent's answer: streamed into as it is written, replaced by the final reply. */
export const ANSWER_ARTIFACT_ID = 'answer';

/**
 * What a task records of its Legion side (`metadata.legion`): where its work is (so a follow-up in
 * its context continues the same conversation, and `legion log` finds it), and, while it is
 * input-required, what it waits on. Read back from the task store's files: parsed, never trusted.
 */
export const LegionTaskFactsSchema = z.object({
  sessionId: z.string().min(1),
  conversationId: z.string().min(1),
  agent: z.string().min(1),
  waiting: z
    .object({
      /** Questions to the A2A caller: the client's next message is the answer. */
      questions: z.array(z.string()),
      /** Approval requests the caller may decide: the next message approves or rejects them. */
      approvals: z.array(z.string()),
      /** Approval requests only the human decides, on their own surfaces. */
      elsewhere: z.array(z.string()),
    })
    .optional(),
});
export type LegionTaskFacts = z.infer<typeof LegionTaskFactsSchema>;

/** The Legion facts of a task's metadata, if it has valid ones. */
export function legionFactsOf(metadata: Record<string, unknown> | undefined): LegionTaskFacts | undefined {
  const parsed = LegionTaskFactsSchema.safeParse(metadata?.['legion']);
  return parsed.success ? parsed.data : undefined;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** The text of a client's message: its text parts, joined (files and data are not taken). */
export function textOfMessage(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text.length > 0)
    .join('\n');
}

export function agentMessage(ids: TaskIds, text: string, metadata?: Record<string, unknown>): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A status update; with `text`, it carries an agent message (shown by clients, kept in the task's history). */
export function statusEvent(
  ids: TaskIds,
  state: TaskState,
  options: { text?: string | undefined; metadata?: Record<string, unknown> | undefined } = {},
): AgentExecutionEvent {
  return AgentEvent.statusUpdate({
    ...ids,
    status: {
      state,
      message: options.text === undefined ? undefined : agentMessage(ids, options.text),
      timestamp: new Date().toISOString(),
    },
    metadata: options.metadata,
  });
}

/** A piece of the answer artifact: `append` adds to what was streamed; the last chunk (not appended) is the whole reply. */
export function answerEvent(ids: TaskIds, text: string, chunk: { append: boolean; lastChunk: boolean }): AgentExecutionEvent {
  return AgentEvent.artifactUpdate({
    ...ids,
    artifact: {
      artifactId: ANSWER_ARTIFACT_ID,
      name: 'answer',
      description: "The agent's reply, after its whole delegation tree worked",
      parts: [textPart(text)],
      metadata: undefined,
      extensions: [],
    },
    append: chunk.append,
    lastChunk: chunk.lastChunk,
    metadata: undefined,
  });
}
