import { textOf, type KeptFileChange, type Message, type ToolResultBlock, type ToolUseBlock } from '@legion-collective/core';
import type { Style } from './style.js';
import { inert, inertLine } from './terminal-text.js';
import { clip, readableTime } from './text.js';

/** Who wrote a message of conversation initiator → responder: the log keeps roles, and tool results are the responder's. */
export function authorOf(message: Message, initiator: string, responder: string): string {
  if (message.role === 'assistant') return responder;
  return message.content.some((block) => block.type === 'tool_result') ? responder : initiator;
}

/** A tool call on one line: the tool, its input, and (when known) how it ended. */
export function toolLine(toolUse: ToolUseBlock, result: ToolResultBlock | undefined, style: Style): string {
  const call = `${style.magenta(`⚙ ${inertLine(toolUse.name)}`)} ${style.dim(clip(JSON.stringify(toolUse.input), 100))}`;
  if (!result) return `  ${call}`;
  const outcome = result.isError ? style.red(`✗ ${clip(result.content, 100)}`) : style.dim(`→ ${clip(result.content, 80)}`);
  return `  ${call} ${outcome}`;
}

/** How many lines of a kept diff a listing shows under its call: a rewrite's whole file would bury the conversation. */
export const MAX_CHANGE_LINES = 40;

/**
 * A done call's kept file change under its line: the diff's hunks (the call's line names the
 * file), removed lines red and added green, each made inert and cut to `width`; past
 * `MAX_CHANGE_LINES`, how many more (`--json` has them whole). A change not kept says why.
 */
export function changeLines(change: KeptFileChange, style: Style, width = 160): string[] {
  if (change.status === 'not_kept')
    return [`    ${style.dim(`(the change to ${inertLine(change.path)} was not kept: ${clip(change.reason, width)})`)}`];
  const diff = change.patch
    .replace(/\n$/, '')
    .split('\n')
    .filter((line) => !line.startsWith('--- ') && !line.startsWith('+++ '));
  const shown = diff.slice(0, MAX_CHANGE_LINES).map((line) => {
    const text = inertLine(line.length > width ? `${line.slice(0, width - 1)}…` : line);
    const coloured = line.startsWith('@@')
      ? style.cyan(text)
      : line.startsWith('-')
        ? style.red(text)
        : line.startsWith('+')
          ? style.green(text)
          : style.dim(text);
    return `    ${coloured}`;
  });
  const more = diff.length - shown.length;
  return more > 0 ? [...shown, `    ${style.dim(`… ${more} more diff line${more === 1 ? '' : 's'} (--json has them all)`)}`] : shown;
}

/** A kept change in a few words, for a listing of one line per message: the file and its lines removed and added. */
export function changeSummary(change: KeptFileChange): string {
  if (change.status === 'not_kept') return `(${change.path}: change not kept)`;
  let removed = 0;
  let added = 0;
  for (const line of change.patch.split('\n')) {
    if (line.startsWith('-') && !line.startsWith('--- ')) removed++;
    else if (line.startsWith('+') && !line.startsWith('+++ ')) added++;
  }
  return `(${change.path}: -${removed} +${added})`;
}

/** The kept change of a call that succeeded; none for a failed one, or a result without the record (an older session). */
function keptChangeLines(result: ToolResultBlock | undefined, style: Style): string[] {
  return result?.fileChange !== undefined && result.isError !== true ? changeLines(result.fileChange, style) : [];
}

/** How a turn that did not answer ended, on one line (its error cut to `width`). */
export function endingLine(ending: NonNullable<Message['ending']>, style: Style, width = 200): string {
  if (ending.status === 'cancelled') return style.yellow('⊘ cancelled: the turn was stopped before it finished its reply');
  return style.red(`✗ failed (${inertLine(ending.code)})${ending.error ? `: ${clip(ending.error, width)}` : ''}`);
}

/**
 * A message on one line for a listing people read (the REPL's banner and /history, `legion
 * sessions show`): its text cut to `width`, or, for the message that ends a failed or cancelled
 * turn, the status line: that message's text is written for its model, not for people.
 */
export function messageSummary(message: Message, style: Style, width: number, text = textOf(message)): string {
  return message.ending ? endingLine(message.ending, style, width) : clip(text, width);
}

export function resultLine(result: ToolResultBlock, style: Style): string {
  return `  ${result.isError ? style.red(`↳ ✗ ${clip(result.content, 120)}`) : style.dim(`↳ ${clip(result.content, 120)}`)}`;
}

/**
 * A conversation's messages as people read them: each message's author, time
 * and text, and each tool call with its result collapsed to one line, a file
 * change followed by the diff it kept (results
 * are looked up in the messages given, so a call whose result comes later shows
 * just the call).
 */
export function renderMessages(
  messages: readonly Message[],
  who: { initiator: string; responder: string },
  style: Style,
  options: MessageLineOptions = {},
  /** Where calls' results are looked up (default: `messages`): the whole history when `messages` is a run of it. */
  history: readonly Message[] = messages,
): string[] {
  const results = new Map<string, ToolResultBlock>();
  for (const message of history) for (const block of message.content) if (block.type === 'tool_result') results.set(block.toolUseId, block);
  const lines: string[] = [];
  for (const message of messages) lines.push(...renderMessage(message, who, style, (id) => results.get(id), undefined, options));
  return lines;
}

export interface MessageLineOptions {
  /**
   * Renders a message's text as markdown lines (`markdownLines` at the terminal's width, where
   * `markdownEnabled`); without it, the text as written. Passed in, so the commands that list
   * messages on one line do not load the markdown renderer.
   */
  readonly markdown?: ((text: string) => string[]) | undefined;
}

/** One message; tool results whose call is in `resultOf`'s view are left to that call's line. */
export function renderMessage(
  message: Message,
  who: { initiator: string; responder: string },
  style: Style,
  resultOf: (toolUseId: string) => ToolResultBlock | undefined,
  shownCalls?: ReadonlySet<string>,
  options: MessageLineOptions = {},
): string[] {
  const lines: string[] = [];
  const author = authorOf(message, who.initiator, who.responder);
  // A turn's ending is written in the responder's place for its model; people read what happened.
  if (message.ending) return [`${style.cyan(author)} ${style.dim(readableTime(message.at))}`, `  ${endingLine(message.ending, style)}`];
  const text = message.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('')
    .trim();
  const header = `${style.cyan(inertLine(author))} ${style.dim(inertLine(readableTime(message.at)))}`;
  const toolUses = message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
  if (text || toolUses.length > 0) lines.push(header);
  // The text is a model's (or a tool's): made inert, its own line breaks kept (or rendered from markdown, inert too).
  if (text) lines.push(...(options.markdown ? options.markdown(text) : inert(text).split('\n')).map((line) => `  ${line}`));
  for (const toolUse of toolUses) {
    const result = resultOf(toolUse.id);
    lines.push(toolLine(toolUse, result, style), ...keptChangeLines(result, style));
  }
  // A result is shown on its own only when its call was shown earlier without it (a live tail).
  for (const block of message.content)
    if (block.type === 'tool_result' && shownCalls?.has(block.toolUseId))
      lines.push(resultLine(block, style), ...keptChangeLines(block, style));
  return lines;
}
