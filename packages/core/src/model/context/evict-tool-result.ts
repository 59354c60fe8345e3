import type { ToolResultBlock } from '../../kernel/index.js';
import { errorMessage } from '../../kernel/index.js';
import type { SessionArtifacts } from '../../store/index.js';
import { previewText } from './result-preview.js';
import { countTextTokens, exceedsTokens } from './text-tokens.js';
import { loadTokenCounter } from './token-count.js';

/** The tool that reads artifacts back; the reference names it. */
export const ARTIFACT_READ_TOOL_NAME = 'artifact_read';

/** Most of a preview's budget, whatever the threshold: a preview is a glimpse, artifact_read is for reading. */
const MAX_PREVIEW_TOKENS = 2_000;
/** Bytes counted exactly for the reference's token figure; beyond, it is estimated from them (counting 10 MB takes seconds). */
const EXACT_COUNT_BYTES = 1024 * 1024;

export interface ToolResultEvictionOptions {
  /** This session's artifacts: where evicted results are kept whole. */
  artifacts: SessionArtifacts;
  /** A result above this many tokens is evicted (`ContextSettings.evictAboveTokens`). */
  evictAboveTokens: number;
  /** The most of one result kept (`ContextSettings.artifactMaxBytes`); beyond, it is cut, saying so. */
  artifactMaxBytes: number;
  /** Whether the agent has `artifact_read`: the reference says how to read on, or that it cannot. */
  canReadArtifacts: boolean;
}

/** The first line of an evicted result: `[Evicted to artifact "tool-x.txt": …`. */
const EVICTED = /^\[Evicted to artifact "([A-Za-z0-9][A-Za-z0-9._-]*)"/;

/** The artifact an evicted result's content refers to, if it is one. */
export function evictedArtifactName(content: string): string | undefined {
  return EVICTED.exec(content)?.[1];
}

/** The preview's token budget for a threshold: well under it, so that a preview is never evicted in turn. */
export function previewBudget(evictAboveTokens: number): number {
  return Math.max(32, Math.min(MAX_PREVIEW_TOKENS, Math.floor(evictAboveTokens * 0.4)));
}

/**
 * Relief step 1: a tool result larger than the agent's eviction threshold is
 * stored whole as a session artifact, and the model (and the log) get a
 * preview — its first and last lines — and a reference saying how to read the
 * rest. The artifact is written before the preview is returned (so before it
 * is appended): nothing is lost. If the write fails, the preview says so and
 * stays a bounded cut; nothing throws. One instance per tool phase (it keeps
 * the names it gave, so two results never share one).
 */
export class ToolResultEviction {
  private readonly given = new Set<string>();

  constructor(private readonly options: ToolResultEvictionOptions) {}

  async apply(block: ToolResultBlock): Promise<ToolResultBlock> {
    const { evictAboveTokens, artifactMaxBytes } = this.options;
    const { text: content, cutBytes } = cutToBytes(block.content, artifactMaxBytes);
    if (!(await exceedsTokens(content, evictAboveTokens))) return cutBytes > 0 ? { ...block, content } : block;
    const count = await loadTokenCounter();
    const preview = previewText(content, count, previewBudget(evictAboveTokens));
    const bytes = Buffer.byteLength(content, 'utf8');
    const size = `${bytes} bytes, ${preview.lines} line${preview.lines === 1 ? '' : 's'}, ${tokenFigure(content, bytes, count)} tokens`;
    const cutNote =
      cutBytes > 0
        ? ` It was ${Buffer.byteLength(block.content, 'utf8')} bytes; only its first and last ${artifactMaxBytes} bytes are kept (context.artifactMaxBytes).`
        : '';
    let name: string | undefined;
    let header: string;
    try {
      name = await this.nameFor(block.toolUseId);
      await this.options.artifacts.put(name, content);
      header = `[Evicted to artifact "${name}": this result (${size}) is too large for your context, so only its first and last lines are shown.${cutNote} ${this.howToRead(name)}]`;
    } catch (error) {
      header = `[This result (${size}) is too large for your context and could not be stored as an artifact (${errorMessage(error)}), so only its first and last lines are kept; the rest is lost. Narrow the call to get a smaller result.]`;
    }
    return { ...block, content: `${header}\n${preview.text}` };
  }

  private howToRead(name: string): string {
    if (!this.options.canReadArtifacts)
      return `${ARTIFACT_READ_TOOL_NAME}, which reads artifacts, is not among your tools: narrow the call instead, or ask for ${ARTIFACT_READ_TOOL_NAME} to be granted.`;
    return (
      `Read more with ${ARTIFACT_READ_TOOL_NAME} {"name": "${name}", "offset": 1, "limit": 100} (lines), ` +
      `or search it with ${ARTIFACT_READ_TOOL_NAME} {"name": "${name}", "grep": "<regex>"}.`
    );
  }

  /** `tool-<toolUseId>.txt`, made safe and unique in the session (a provider may reuse ids across conversations). */
  private async nameFor(toolUseId: string): Promise<string> {
    const base = `tool-${toolUseId
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/\.{2,}/g, '_')
      .slice(0, 100)}`;
    const taken = new Set((await this.options.artifacts.list()).map((artifact) => artifact.name));
    for (let index = 1; ; index++) {
      const name = index === 1 ? `${base}.txt` : `${base}-${index}.txt`;
      if (!taken.has(name) && !this.given.has(name)) {
        this.given.add(name);
        return name;
      }
    }
  }
}

/** The token count, exact up to 1 MB; past it estimated from the first megabyte and said to be (`about`). */
function tokenFigure(content: string, bytes: number, count: (text: string) => number): string {
  if (bytes <= EXACT_COUNT_BYTES) return String(countTextTokens(count, content));
  const sample = content.slice(0, EXACT_COUNT_BYTES);
  const sampleBytes = Buffer.byteLength(sample, 'utf8');
  return `about ${Math.round((countTextTokens(count, sample) * bytes) / sampleBytes)}`;
}

/**
 * Keeps the first and last halves of `maxBytes` of a text, cut on character
 * boundaries, with the mark the redactor knows (`… [N bytes cut] …`) between.
 */
export function cutToBytes(text: string, maxBytes: number): { text: string; cutBytes: number } {
  // Characters are at most 3 bytes in UTF-16-held text (a surrogate pair is 2 characters, 4 bytes): short enough for sure.
  if (text.length * 3 <= maxBytes) return { text, cutBytes: 0 };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, cutBytes: 0 };
  const half = Math.floor(maxBytes / 2);
  // Decoding drops a character cut in two at either edge (as U+FFFD); strip those.
  const head = bytes
    .subarray(0, half)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const tail = bytes
    .subarray(bytes.length - half)
    .toString('utf8')
    .replace(/^\uFFFD/, '');
  const cutBytes = bytes.length - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
  return { text: `${head}\n… [${cutBytes} bytes cut] …\n${tail}`, cutBytes };
}
