import type { Message, Usage } from '../../kernel/index.js';
import { generate, type LLMProvider, type ModelRequest, type ModelResponse } from '../providers/llm-provider.js';
import type { TokenMeasure } from './context-tokens.js';

/** Who the conversation is between and for whom it is done: what a summary must never drop. */
export interface SummaryParties {
  /** The agent whose context is compacted (the conversation's responder). */
  agentId: string;
  /** Who sent it the messages (the conversation's initiator). */
  initiator: string;
  /** Everyone waiting on this turn, outermost first (the delegation chain). */
  chain: readonly string[];
}

export interface SummarizeOptions {
  provider: LLMProvider;
  parties: SummaryParties;
  /** The summary of an earlier compaction, folded into the new one. */
  previousSummary: string | undefined;
  /** The messages to summarize, oldest first. */
  messages: readonly Message[];
  /** The most input tokens one summarizer request may carry: a longer part is summarized in pieces. */
  inputBudget: number;
  maxTokens: number;
  measure: TokenMeasure;
  signal?: AbortSignal | undefined;
  /** Told about each summarizer call's usage (for the session's usage ledger). */
  onUsage?: ((usage: Usage) => Promise<void>) | undefined;
  /** Runs each summarizer call, wrapped (the runtime traces it as a model call of the turn). */
  wrapCall?: SummarizerCallWrapper | undefined;
}

/** Wraps one summarizer model call: `run` makes it. */
export type SummarizerCallWrapper = (request: ModelRequest, run: () => Promise<ModelResponse>) => Promise<ModelResponse>;

/** A tool's output is the bulkiest part of a transcript and the least worth keeping word for word. */
const TOOL_RESULT_CHARS = 1_500;
const TOOL_INPUT_CHARS = 600;

/** Marks the summarizer's requests: a scripted or recorded model can tell them from the agent's own. */
export const SUMMARY_SYSTEM_MARK = 'You write the hand-off summary of a conversation that is being compacted.';

export function summarySystemPrompt(parties: SummaryParties): string {
  const chain = parties.chain.length > 0 ? parties.chain.join(' → ') : parties.initiator;
  return [
    SUMMARY_SYSTEM_MARK,
    `The agent "${parties.agentId}" will continue the work from your summary and the newest messages, which are kept verbatim.`,
    'Write these sections, in this order, in plain Markdown:',
    `## Who asked for what: every request, with who made it. ${parties.initiator} sent the messages; the delegation chain it works for is ${chain} → ${parties.agentId}. Keep who delegated what to whom.`,
    '## Decisions: what was decided, by whom, and why.',
    '## Done so far: results, with the exact facts, figures and identifiers needed later.',
    '## Open questions: what is unanswered, blocked or waiting (approvals included).',
    '## Files and resources: every file path read, written, created or deleted, and commands whose effects matter.',
    'Keep names, paths, ids and numbers exact. Never invent anything. Leave out the todo list and the pinned scratchbook notes: they are carried over separately, verbatim.',
  ].join('\n');
}

/** One message as a transcript line: who, then what (tool inputs and outputs cut short). */
export function transcriptLine(message: Message, parties: SummaryParties): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_use') parts.push(`[calls ${block.name} ${cut(JSON.stringify(block.input) ?? '', TOOL_INPUT_CHARS)}]`);
    else parts.push(`[${block.isError ? 'error from' : 'result of'} the call: ${cut(block.content, TOOL_RESULT_CHARS)}]`);
  }
  const who =
    message.role === 'assistant'
      ? parties.agentId
      : message.content.every((block) => block.type === 'tool_result')
        ? 'tools'
        : parties.initiator;
  return `${who} (${message.at}, ${message.id}): ${parts.join('\n')}`;
}

/**
 * Summarizes the messages, folding in the previous summary. A part too large for one
 * summarizer request is summarized in pieces, each folding the summary so far, so the
 * summarizer's own request never exceeds its window.
 */
export async function summarize(options: SummarizeOptions): Promise<string> {
  const { measure, parties } = options;
  const system = summarySystemPrompt(parties);
  const overhead = measure.text(system) + 200;
  let summary = options.previousSummary;
  let chunk: string[] = [];
  let chunkTokens = 0;
  const flush = async (): Promise<void> => {
    if (chunk.length === 0) return;
    summary = await summarizeOnce(options, system, summary, chunk.join('\n\n'));
    chunk = [];
    chunkTokens = 0;
  };
  for (const message of options.messages) {
    const room = Math.max(200, options.inputBudget - overhead - (summary ? measure.text(summary) : 0));
    let line = transcriptLine(message, parties);
    let tokens = measure.text(line);
    if (tokens > room) {
      // One message larger than a whole request: its head stands for it, saying so.
      line = `${line.slice(0, Math.floor((line.length * room) / tokens / 2))}… [cut: ${tokens} tokens in all]`;
      tokens = measure.text(line);
    }
    if (chunkTokens + tokens > room) await flush();
    chunk.push(line);
    chunkTokens += tokens;
  }
  await flush();
  return summary ?? '';
}

async function summarizeOnce(options: SummarizeOptions, system: string, previous: string | undefined, transcript: string): Promise<string> {
  const text = [
    previous ? `The summary so far:\n<summary>\n${previous}\n</summary>\n` : '',
    `The conversation to fold in, oldest first:\n<transcript>\n${transcript}\n</transcript>\n`,
    previous ? 'Write the updated summary: everything of the summary so far that still matters, and the transcript.' : 'Write the summary.',
  ].join('\n');
  const request: ModelRequest = {
    system,
    messages: [{ id: 'summary-request', role: 'user', at: new Date().toISOString(), content: [{ type: 'text', text }] }],
    tools: [],
    maxTokens: options.maxTokens,
  };
  const run = (): Promise<ModelResponse> => generate(options.provider, request, { signal: options.signal });
  const response = await (options.wrapCall ? options.wrapCall(request, run) : run());
  if (response.usage) await options.onUsage?.(response.usage);
  const summary = response.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
  if (summary === '') throw new Error(`the summarizer (${options.provider.name}/${options.provider.model}) answered with no text`);
  return summary;
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}… [${text.length - chars} more characters]`;
}
