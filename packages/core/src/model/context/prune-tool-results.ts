import type { Message, ToolResultBlock } from '../../kernel/index.js';
import type { ToolDefinition } from '../providers/llm-provider.js';
import type { SessionArtifacts } from '../../store/index.js';
import { ARTIFACT_READ_TOOL_NAME, evictedArtifactName } from './evict-tool-result.js';
import { blockTokens, listUpperBound, tokenMeasure, type MeasureMessage } from './message-tokens.js';
import { loadTokenCounter, tokenUpperBound } from './token-count.js';
import { countTextTokens } from './text-tokens.js';

export interface PruneOptions {
  /** Past this many tokens in the request, old tool results give way (`ContextSettings.pruneAtTokens`). */
  pruneAtTokens: number;
  /** The newest tokens of the conversation that are never pruned (`ContextSettings.protectRecentTokens`). */
  protectRecentTokens: number;
  /** This session's artifacts: a result pruned without having been evicted is stored there first. */
  artifacts: SessionArtifacts;
  /** Whether the agent has `artifact_read`: the stub says how to read the result back, or that it cannot. */
  canReadArtifacts: boolean;
  /** Tokens of one message; default: counted with the real tokenizer, each block once. */
  measure?: MeasureMessage | undefined;
}

/** What else the request carries: it counts toward the threshold too. */
export interface RequestFrame {
  system: string;
  tools: readonly ToolDefinition[];
}

/** A result this small is left alone: its stub would save next to nothing. */
const MIN_PRUNED_TOKENS = 100;
/** opencode's floor for a prune worth breaking the provider's prompt cache for; smaller windows get a tenth of their threshold. */
const MAX_MINIMUM_RECLAIM = 20_000;
/** The last this many user turns are never pruned, whatever their size (opencode protects two). */
const PROTECTED_USER_TURNS = 2;

/** A pruned block's stub, kept per block: the same object at every step (counted once, artifact written once). */
const stubs = new WeakMap<ToolResultBlock, ToolResultBlock>();
const frameTokens = new WeakMap<readonly ToolDefinition[], Map<string, number>>();
const frameBytes = new WeakMap<readonly ToolDefinition[], number>();

/** The least a prune must reclaim to be worth it: 20k tokens, or a tenth of the threshold for smaller windows. */
export function minimumReclaim(pruneAtTokens: number): number {
  return Math.min(MAX_MINIMUM_RECLAIM, Math.floor(pruneAtTokens / 10));
}

/**
 * Relief step 2 (after eviction, before summarizing): once the request passes
 * `pruneAtTokens`, the tool results older than the protected recent part
 * (`protectRecentTokens`, and never the last two user turns) are replaced in
 * the model request by a one-line stub naming the artifact that holds them —
 * stored there first if they were never evicted — so the agent can read them
 * back. Only when that reclaims a worthwhile amount (`minimumReclaim`). The
 * log is not touched: the messages returned are new objects where changed.
 */
export async function pruneToolResults(
  messages: readonly Message[],
  frame: RequestFrame,
  options: PruneOptions,
): Promise<readonly Message[]> {
  // Kept per history list (it only grows): a step adds the messages appended since the last, not the whole conversation.
  const bound = listUpperBound(messages) + frameUpperBound(frame);
  if (bound <= options.pruneAtTokens) return messages;
  // Most of a request past the bound may be tool definitions and new turns, which no prune touches:
  // when the results it could touch cannot add up to a worthwhile prune, nothing is counted (nor the tokenizer loaded).
  if (prunableUpperBound(messages) < minimumReclaim(options.pruneAtTokens)) return messages;
  const count = await loadTokenCounter();
  const measure = options.measure ?? tokenMeasure(count);
  const sizes = messages.map(measure);
  const total = sizes.reduce((sum, size) => sum + size, countFrame(frame, count));
  if (total <= options.pruneAtTokens) return messages;

  const boundary = protectedFrom(messages, sizes, options.protectRecentTokens);
  const toolNames = new Map<string, string>();
  const candidates: Array<{ index: number; block: number; tokens: number }> = [];
  let reclaimable = 0;
  for (let index = 0; index < boundary; index++) {
    const message = messages[index]!;
    message.content.forEach((block, position) => {
      if (block.type === 'tool_use') toolNames.set(block.id, block.name);
      if (block.type !== 'tool_result' || stubs.get(block) === block) return;
      const tokens = blockTokens(block, count);
      if (tokens < MIN_PRUNED_TOKENS) return;
      candidates.push({ index, block: position, tokens });
      reclaimable += tokens;
    });
  }
  if (reclaimable < minimumReclaim(options.pruneAtTokens)) return messages;

  const pruned = [...messages];
  let stored: Promise<Set<string>> | undefined;
  // Read once per prune, and only if some result has to be stored: another process, or an earlier run, may have stored it already.
  const storedNames = (): Promise<Set<string>> =>
    (stored ??= options.artifacts.list().then((artifacts) => new Set(artifacts.map((artifact) => artifact.name))));
  for (const { index, block: position } of candidates) {
    const message = pruned[index]!;
    const block = message.content[position] as ToolResultBlock;
    const stub = await stubFor(
      block,
      message,
      position,
      toolNames.get(block.toolUseId) ?? 'a tool',
      blockTokens(block, count),
      options,
      storedNames,
    );
    if (!stub) continue;
    const content = [...message.content];
    content[position] = stub;
    pruned[index] = { ...message, content };
  }
  return pruned;
}

/** The most a prune could reclaim: the byte bound of the tool results before the last two user turns. */
function prunableUpperBound(messages: readonly Message[]): number {
  let turns = 0;
  let index = messages.length - 1;
  for (; index >= 0 && turns < PROTECTED_USER_TURNS; index--) {
    const message = messages[index]!;
    if (message.role === 'user' && message.content.some((block) => block.type === 'text')) turns++;
  }
  let total = 0;
  for (; index >= 0; index--) {
    for (const block of messages[index]!.content)
      if (block.type === 'tool_result' && stubs.get(block) !== block) total += tokenUpperBound(block.content);
  }
  return total;
}

/** Messages from this index on are protected: the last two user turns, and the newest `protectRecentTokens`. */
function protectedFrom(messages: readonly Message[], sizes: readonly number[], protectRecentTokens: number): number {
  let turns = 0;
  let turnBoundary = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user' && message.content.some((block) => block.type === 'text')) {
      turns++;
      if (turns === PROTECTED_USER_TURNS) {
        turnBoundary = index;
        break;
      }
    }
  }
  let recent = 0;
  let tokenBoundary = messages.length;
  while (tokenBoundary > 0 && recent + sizes[tokenBoundary - 1]! <= protectRecentTokens) recent += sizes[--tokenBoundary]!;
  return Math.min(turnBoundary, tokenBoundary);
}

async function stubFor(
  block: ToolResultBlock,
  message: Message,
  position: number,
  toolName: string,
  tokens: number,
  options: PruneOptions,
  storedNames: () => Promise<Set<string>>,
): Promise<ToolResultBlock | undefined> {
  const known = stubs.get(block);
  if (known) return known;
  let name = evictedArtifactName(block.content);
  if (name === undefined) {
    name = `pruned-${message.id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}-${position}.txt`;
    try {
      // The name is the message's (a UUID) and the block's place in it: stored once, whoever stores it.
      if (!(await storedNames()).has(name)) await options.artifacts.put(name, block.content);
    } catch {
      // Not stored, so not pruned: nothing may be lost. Eviction and compaction still relieve the context.
      return undefined;
    }
  }
  const read = options.canReadArtifacts ? ` Read it back with ${ARTIFACT_READ_TOOL_NAME} {"name": "${name}"} if you need it.` : '';
  const stub: ToolResultBlock = {
    ...block,
    content: `[Pruned from your context: this earlier result of ${toolName} (${tokens} tokens) is kept whole as artifact "${name}".${read}]`,
  };
  stubs.set(block, stub);
  stubs.set(stub, stub);
  return stub;
}

function frameUpperBound(frame: RequestFrame): number {
  let bytes = frameBytes.get(frame.tools);
  if (bytes === undefined) frameBytes.set(frame.tools, (bytes = tokenUpperBound(JSON.stringify(frame.tools))));
  return bytes + tokenUpperBound(frame.system);
}

function countFrame(frame: RequestFrame, count: (text: string) => number): number {
  let cache = frameTokens.get(frame.tools);
  if (!cache) frameTokens.set(frame.tools, (cache = new Map()));
  let tokens = cache.get(frame.system);
  if (tokens === undefined)
    cache.set(frame.system, (tokens = countTextTokens(count, frame.system) + countTextTokens(count, JSON.stringify(frame.tools))));
  return tokens;
}
