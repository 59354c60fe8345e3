import { TaskState, type Message as A2aMessage, type Part, type StreamResponse } from '@a2a-js/sdk';
import type { Usage } from '../../../kernel/index.js';

/** A2A's task states as the protocol spells them in JSON, which is how Legion stores and shows them. */
const STATE_NAMES = new Map<TaskState, string>([
  [TaskState.TASK_STATE_SUBMITTED, 'submitted'],
  [TaskState.TASK_STATE_WORKING, 'working'],
  [TaskState.TASK_STATE_COMPLETED, 'completed'],
  [TaskState.TASK_STATE_FAILED, 'failed'],
  [TaskState.TASK_STATE_CANCELED, 'canceled'],
  [TaskState.TASK_STATE_INPUT_REQUIRED, 'input-required'],
  [TaskState.TASK_STATE_REJECTED, 'rejected'],
  [TaskState.TASK_STATE_AUTH_REQUIRED, 'auth-required'],
]);

/** States after which the task takes no more messages. */
const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
/** States in which the task waits for the client: the next message continues it. */
export const WAITING = new Set(['input-required', 'auth-required']);

export function isTerminal(state: string | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

export function isSettled(state: string | undefined): boolean {
  return state !== undefined && (TERMINAL.has(state) || WAITING.has(state));
}

/**
 * Folds what a remote agent streams (a task, status updates, artifact chunks, or a plain message) into
 * the answer: the artifacts' text when there are any, else what its messages said. Text is counted as it
 * comes, so the caller can stop a remote that will not stop.
 */
export class RemoteReply {
  taskId: string | undefined;
  contextId: string | undefined;
  state: string | undefined;
  usage: Usage | undefined;
  /** Bytes of text received so far (UTF-8). */
  bytes = 0;
  private readonly artifacts = new Map<string, string>();
  /** The agent's last message: a status message (a question, a reason it failed) or a reply without a task. */
  private said = '';

  /** Takes one streamed event; returns the new text it carried (for a live view), or ''. */
  take(event: StreamResponse): string {
    const payload = event.payload;
    if (!payload) return '';
    switch (payload.$case) {
      case 'message':
        this.ids(payload.value.taskId, payload.value.contextId);
        this.readUsage(payload.value.metadata);
        this.state ??= 'completed';
        return this.say(payload.value);
      case 'task': {
        const task = payload.value;
        this.ids(task.id, task.contextId);
        this.readUsage(task.metadata);
        let added = '';
        for (const artifact of task.artifacts ?? []) added += this.setArtifact(artifact.artifactId, textOfParts(artifact.parts), false);
        return added + this.status(task.status);
      }
      case 'statusUpdate':
        this.ids(payload.value.taskId, payload.value.contextId);
        this.readUsage(payload.value.metadata);
        return this.status(payload.value.status);
      case 'artifactUpdate': {
        const update = payload.value;
        this.ids(update.taskId, update.contextId);
        this.readUsage(update.metadata);
        if (!update.artifact) return '';
        this.readUsage(update.artifact.metadata);
        return this.setArtifact(update.artifact.artifactId, textOfParts(update.artifact.parts), update.append);
      }
    }
  }

  /** The answer: the artifacts' text, or (none) the agent's last message. */
  text(): string {
    const artifacts = [...this.artifacts.values()].filter((text) => text.trim() !== '');
    return artifacts.length > 0 ? artifacts.join('\n\n') : this.said;
  }

  /** What the agent said last in a status message: the question when it waits for input, the reason when it failed. */
  lastSaid(): string {
    return this.said;
  }

  private ids(taskId: string | undefined, contextId: string | undefined): void {
    if (taskId) this.taskId = taskId;
    if (contextId) this.contextId = contextId;
  }

  private status(status: { state: TaskState; message: A2aMessage | undefined } | undefined): string {
    if (!status) return '';
    this.state = STATE_NAMES.get(status.state) ?? this.state;
    if (!status.message) return '';
    this.readUsage(status.message.metadata);
    return this.say(status.message);
  }

  private say(message: A2aMessage): string {
    const text = textOfParts(message.parts);
    if (text === '') return '';
    this.said = text;
    this.bytes += Buffer.byteLength(text);
    return text;
  }

  private setArtifact(id: string, text: string, append: boolean): string {
    const before = this.artifacts.get(id) ?? '';
    const next = append ? before + text : text;
    this.artifacts.set(id, next);
    this.bytes += Buffer.byteLength(text);
    return next.startsWith(before) ? next.slice(before.length) : text;
  }

  /**
   * A2A has no usage field: agents that report it put it in metadata. Read: `usage` with OpenAI's or
   * Anthropic's names, and ADK's `adk_usage_metadata` (Gemini's names). The last report wins: they are totals.
   */
  private readUsage(metadata: Record<string, unknown> | undefined): void {
    if (!metadata) return;
    const found = usageFrom(metadata['usage']) ?? usageFrom(metadata['adk_usage_metadata']) ?? usageFrom(metadata['usageMetadata']);
    if (found) this.usage = found;
  }
}

function usageFrom(value: unknown): Usage | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const count = (...names: string[]): number | undefined => {
    for (const name of names) {
      const found = record[name];
      if (typeof found === 'number' && Number.isInteger(found) && found >= 0) return found;
    }
    return undefined;
  };
  const inputTokens = count('inputTokens', 'input_tokens', 'promptTokens', 'prompt_tokens', 'promptTokenCount', 'prompt_token_count');
  const outputTokens = count(
    'outputTokens',
    'output_tokens',
    'completionTokens',
    'completion_tokens',
    'candidatesTokenCount',
    'candidates_token_count',
  );
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
}

/** The text parts of a message or an artifact; files and data are named, not inlined. */
function textOfParts(parts: readonly Part[] | undefined): string {
  const texts: string[] = [];
  for (const part of parts ?? []) {
    const content = part.content;
    if (!content) continue;
    if (content.$case === 'text') texts.push(content.value);
    else if (content.$case === 'data') texts.push(`\n${JSON.stringify(content.value)}\n`);
    else texts.push(`\n[${content.$case === 'url' ? `file at ${content.value}` : 'file'}${part.filename ? ` ${part.filename}` : ''}]\n`);
  }
  // Text parts are pieces of one text (an artifact streamed in chunks arrives as its parts, in order).
  return texts.join('');
}
