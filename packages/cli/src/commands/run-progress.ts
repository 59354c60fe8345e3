import type { EventBus, LegionEvent } from '@legion-collective/core';
import { clip, formatDuration, keyArgument, outcomeOf } from '../repl/format.js';
import { inert, inertLine, type TerminalOut } from '../render/terminal-text.js';
import { describeClaimConflict } from '../render/claim-lines.js';

/** Moves to the start of the line and erases it: how the status line is taken away before a line is printed. */
const CLEAR_LINE = '\r\x1b[2K';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 100;
const COMMUNICATE = 'communicate';

export interface RunProgress {
  /** Prints a line of the run's own (a notice) above the status line. */
  say(line: string): void;
  /**
   * Runs `prompt` (an approval or a question on the same terminal) with the status line taken
   * away, and puts it back after: the prompt's lines and the status line would overwrite each other.
   */
  aside<T>(prompt: () => Promise<T>): Promise<T>;
  /** Takes the status line away for good and stops listening: the reply goes to stdout next, on a clean line. */
  stop(): void;
}

/**
 * What `legion run` shows on stderr while it works, so a long answer is not a silent wait: a line
 * for each delegation (who asked whom, and what), each finished tool call and each delegate's
 * answer, indented by delegation depth, and a retry said once per failure. On a terminal, a
 * spinner line below them says who is working on what and for how long; it is erased when the
 * run ends. Elsewhere (a pipe, a log file) the same lines, plain, without the spinner.
 */
export function showRunProgress(events: EventBus, out: TerminalOut, options: { you: string; live: boolean }): RunProgress {
  const style = out.style;
  const startedAt = Date.now();
  const depthOf = new Map<string, number>();
  /** Who works in each open conversation, and whether their reply is streaming in. */
  const working = new Map<string, { participantId: string; writing: boolean }>();
  const running = new Map<string, { conversationId: string; label: string; delegation: boolean }>();
  /** Failures already said, by participant: a retry of the same failure is said in a few words. */
  const failuresSaid = new Map<string, string>();
  let retrying: string | undefined;
  let frame = 0;
  let statusShown = false;
  let paused = false;
  let ticker: NodeJS.Timeout | undefined;

  const name = (id: string): string => (id === options.you ? 'you' : inertLine(id));
  const indent = (depth: number): string => '  '.repeat(Math.max(0, depth));

  const clearStatus = (): void => {
    if (!statusShown) return;
    out.stream.write(CLEAR_LINE);
    statusShown = false;
  };
  const drawStatus = (): void => {
    if (!options.live || paused || ticker === undefined) return;
    const parts: string[] = [];
    // Each one working says what it does; one waiting on a delegate says nothing: its delegate's part is the news.
    const tools = [...running.values()];
    for (const [conversationId, work] of working) {
      if (work.participantId === options.you) continue;
      const own = tools.filter((call) => call.conversationId === conversationId);
      if (own.some((call) => call.delegation)) continue;
      if (own.length > 0) parts.push(own.map((call) => call.label).join('; '));
      else parts.push(`${name(work.participantId)} ${work.writing ? 'writing' : 'thinking'}…`);
    }
    if (retrying) parts.push(retrying);
    parts.push(formatDuration(Date.now() - startedAt));
    const text = `${SPINNER[frame % SPINNER.length]} ${parts.join(' · ')}`;
    // Kept to one row: a status line that wraps could not be erased with one CLEAR_LINE.
    const width = Math.max(20, (out.stream.columns ?? 80) - 1);
    clearStatus();
    out.write(style.dim(clip(text, width)));
    statusShown = true;
  };
  const print = (line: string): void => {
    clearStatus();
    out.write(`${line}\n`);
    drawStatus();
  };

  const on = (event: LegionEvent): void => {
    switch (event.type) {
      case 'turn:start':
        depthOf.set(event.conversationId, event.chain.length - 1);
        working.set(event.conversationId, { participantId: event.participantId, writing: false });
        break;
      case 'turn:end':
        working.delete(event.conversationId);
        break;
      case 'text:delta': {
        const work = working.get(event.conversationId);
        if (work) work.writing = true;
        retrying = undefined;
        // The spinner's next frame shows it: a redraw per streamed word would be hundreds of writes a second.
        return;
      }
      case 'tool:call': {
        const work = working.get(event.conversationId);
        if (work) work.writing = false;
        retrying = undefined;
        const input = event.toolUse.input as Record<string, unknown> | null;
        if (event.toolUse.name === COMMUNICATE && input && typeof input.to === 'string') {
          const message = typeof input.message === 'string' ? ` ${style.dim(`"${clip(input.message, 100)}"`)}` : '';
          print(
            `${indent((depthOf.get(event.conversationId) ?? 0) + 1)}${name(event.participantId)} → ${style.bold(name(input.to))}${message}`,
          );
          running.set(event.toolUse.id, {
            conversationId: event.conversationId,
            label: `${name(event.participantId)} → ${name(input.to)}`,
            delegation: true,
          });
        } else {
          const argument = keyArgument(event.toolUse, 40);
          running.set(event.toolUse.id, {
            conversationId: event.conversationId,
            label: `${name(event.participantId)}: ${inertLine(event.toolUse.name)}${argument ? ` ${argument}` : ''}`,
            delegation: false,
          });
        }
        break;
      }
      case 'tool:result': {
        running.delete(event.toolUse.id);
        const depth = (depthOf.get(event.conversationId) ?? 0) + 1;
        const outcome = outcomeOf(event.result);
        const mark = outcome.ok ? style.green('✓') : style.red('✗');
        const duration = style.dim(formatDuration(event.durationMs));
        const input = event.toolUse.input as Record<string, unknown> | null;
        if (event.toolUse.name === COMMUNICATE && input && typeof input.to === 'string') {
          const answered = outcome.ok ? `answered ${name(event.participantId)}` : style.red(outcome.text);
          print(`${indent(depth)}${mark} ${name(input.to)} ${answered}  ${duration}`);
        } else {
          const argument = keyArgument(event.toolUse, 60);
          print(
            `${indent(depth)}${mark} ${name(event.participantId)}  ${style.bold(inertLine(event.toolUse.name))}${argument ? `  ${argument}` : ''}  ${duration}  ${outcome.ok ? style.dim(outcome.text) : style.red(outcome.text)}`,
          );
        }
        break;
      }
      case 'window:guessed':
        print(style.yellow(`${indent(depthOf.get(event.conversationId) ?? 0)}note: ${inert(event.text)}`));
        break;
      case 'claim:conflict':
        print(style.yellow(`${indent((depthOf.get(event.conversationId) ?? 0) + 1)}${describeClaimConflict(event)}`));
        break;
      case 'provider:retry': {
        const who = `${name(event.participantId)}'s model (${inertLine(event.provider)})`;
        const wait = `retry ${event.attempt} of ${event.of} in ${formatDuration(event.waitMs)}${event.askedByProvider ? ' (the provider asked to wait)' : ''}`;
        if (options.live) {
          // On a terminal a retry is the spinner's news, not a line: the failure is said once, at the end, if it lasts.
          retrying = `${who}: ${clip(event.reason, 80)}; ${wait}`;
          drawStatus();
          break;
        }
        const depth = depthOf.get(event.conversationId) ?? 0;
        if (failuresSaid.get(event.participantId) === event.reason) print(style.yellow(`${indent(depth)}${who}: same failure, ${wait}`));
        else print(style.yellow(`${indent(depth)}${who} failed: ${inertLine(event.reason)}; ${wait}`));
        failuresSaid.set(event.participantId, event.reason);
        break;
      }
      default:
        return;
    }
    drawStatus();
  };

  const unsubscribe = events.onAny(on);
  if (options.live) {
    ticker = setInterval(() => {
      frame++;
      drawStatus();
    }, SPINNER_INTERVAL_MS);
    // The spinner never keeps the process alive on its own.
    ticker.unref();
    drawStatus();
  }
  return {
    say: print,
    async aside(prompt) {
      paused = true;
      clearStatus();
      try {
        return await prompt();
      } finally {
        paused = false;
        drawStatus();
      }
    },
    stop() {
      unsubscribe();
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      clearStatus();
    },
  };
}
