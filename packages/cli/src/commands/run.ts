import { LegionError, SessionDriver, type LegionEvent, type TurnResult, type UsageSummary } from '@legion-collective/core';
import { conversationId } from '@legion-collective/core/internal';
import { approvalSurface, TERMINAL_MEDIUM, type ApproveMode } from '../approval-prompt.js';
import { declinedSurface, fixedAnswerSurface, QuestionTracker, type AnswerQuestionsMode } from '../headless/questions.js';
import { oneAtATime, questionPrompt } from '../question-prompt.js';
import { pauseLines, reportedStatus } from './pause-lines.js';
import type { RunReport, StreamLine } from '../headless/stream-line.js';
import { streamLineOf } from '../headless/stream-lines.js';
import { printConversation } from '../render/conversation-printer.js';
import { markdownEnabled, styleFor } from '../render/style.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { showRunProgress, type RunProgress } from './run-progress.js';
import { stdout, stderr, inert, inertLine } from '../render/terminal-text.js';

export interface RunOptions {
  to?: string;
  from?: string;
  session?: string;
  newSession?: boolean;
  conversation?: string;
  output?: 'text' | 'json' | 'stream-json';
  verbose?: boolean;
  quiet?: boolean;
  workspace?: string;
  approve?: ApproveMode;
  answerQuestions?: AnswerQuestionsMode;
  answer?: string;
}

/** `--answer-questions text` needs the text, and `--answer` alone means it; `ask` is the default. */
function questionMode(options: RunOptions): { mode: 'ask' | 'deny' } | { mode: 'text'; text: string } {
  const mode = options.answerQuestions ?? (options.answer !== undefined ? 'text' : 'ask');
  if (mode !== 'text') {
    if (options.answer !== undefined)
      throw new LegionError(
        'usage',
        `--answer gives the text questions are answered with, but --answer-questions is "${mode}". Drop one of them.`,
      );
    return { mode };
  }
  if (options.answer === undefined || options.answer.trim() === '') {
    throw new LegionError(
      'usage',
      '--answer-questions text needs the answer: add --answer "…" (for example --answer "Use your best judgement and say what you assumed").',
    );
  }
  return { mode, text: options.answer };
}

/** `legion run`: one message, headless; prints the reply (or one JSON object) and exits non-zero on failure. */
export async function runCommand(words: string[], options: RunOptions): Promise<number> {
  const questionsBy = questionMode(options);
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  let message: string;
  try {
    message = await readMessage(words, legion.config.limits.maxMessageBytes);
  } catch (error) {
    await legion.close();
    throw error;
  }
  // A message read from standard input leaves no terminal to ask on; nor does a stderr sent elsewhere (the question would go there).
  const interactive = words.length > 0 && words[0] !== '-' && process.stdin.isTTY === true && process.stderr.isTTY === true;
  const terminal = { interactive, input: process.stdin, output: process.stderr };
  // The terminal's prompts take turns: a question and an approval of parallel delegates would read the same line.
  const takeTurns = oneAtATime();
  // Made below, once the run knows who it speaks for; a prompt takes the progress's status line away while it asks.
  let progress: RunProgress | undefined;
  const turnTaking = <T>(prompt: () => Promise<T>): Promise<T> => takeTurns(() => (progress ? progress.aside(prompt) : prompt()));
  const surface = approvalSurface(options.approve ?? legion.config.approval.headless, terminal, legion.approvalRules);
  if (surface?.approve) {
    const approve = surface.approve;
    legion.attachUser({ medium: surface.medium, approve: (requests, context) => turnTaking(() => approve(requests, context)) });
  }
  if (questionsBy.mode === 'text') legion.attachUser(fixedAnswerSurface(questionsBy.text));
  else if (questionsBy.mode === 'deny') legion.attachUser(declinedSurface());
  else if (interactive) {
    const ask = questionPrompt(terminal);
    legion.attachUser({ medium: TERMINAL_MEDIUM, ask: (question, context) => turnTaking(() => ask(question, context)) });
  } else {
    // Nobody here answers: a question waits for a surface another process attached (a browser of `legion
    // serve`) or pauses the run, to be answered with `legion answer` (or from a REPL on the session). Said at once: otherwise the run just seems to hang while it waits for another process's surface.
    legion.events.on('question:asked', (event) => {
      const elsewhere = event.remote ? [] : legion.surfacesElsewhere();
      if (elsewhere.length === 0) return;
      const where = elsewhere.map((surface) => `${inertLine(surface.medium)} (pid ${surface.pid})`).join(', ');
      const notice = `legion: ${inertLine(event.from)} asks ${inertLine(event.user)}: ${inert(event.text)}\n  waiting for an answer on ${where}, or: legion answer ${inertLine(event.questionId)} "…"`;
      if (progress) progress.say(notice);
      else stderr.write(`${notice}\n`);
    });
  }
  if (options.session && options.newSession) throw new LegionError('usage', 'Use either --session or --new-session, not both.');
  const from = options.from ?? legion.collective.defaultUser()?.id;
  if (!from) throw new LegionError('no_user', 'The collective has no user participant; add one or pass --from.');
  // Session choice and sending are core's, as on every surface (the SessionDriver); the run renders and reports.
  const driver = await SessionDriver.open(legion, {
    medium: TERMINAL_MEDIUM,
    as: from,
    session: {
      ...(options.session !== undefined ? { session: options.session } : {}),
      ...(options.newSession ? { newSession: true } : {}),
    },
  });
  const { session } = driver;
  const to = options.to ?? legion.entryAgentId();

  const involved = new Set<string>([from, to]);
  const streaming = options.output === 'stream-json';
  const writeLine = (line: StreamLine): void => {
    stdout.json(line);
  };
  if (streaming) {
    const conversation = conversationId({ initiator: from, responder: to, name: options.conversation });
    writeLine({ type: 'run:start', sessionId: session.id, conversationId: conversation, from, to, message });
    legion.events.onAny((event: LegionEvent) => {
      const line = streamLineOf(event);
      if (line) writeLine(line);
    });
  }
  const questions = new QuestionTracker((id) => legion.collective.get(id)?.type === 'user', streaming ? writeLine : undefined);
  legion.events.onAny(questions.listen);
  legion.events.onAny((event: LegionEvent) => {
    if (event.type === 'turn:start') involved.add(event.participantId);
    // Said at once, not at the end: the user sees why nothing is happening (the progress says it where it is shown).
    if (event.type === 'provider:retry' && !options.verbose && progress === undefined) {
      const why = event.askedByProvider ? 'the provider asked to wait' : 'waiting';
      stderr.write(
        `legion: ${inertLine(event.participantId)}'s model (${inertLine(event.provider)}) failed: ${inert(event.reason)}; ${why} ${formatWait(event.waitMs)}, retry ${event.attempt} of ${event.of}\n`,
      );
    }
  });
  // The turn's own failure is said once, below, with the result: the printer leaves it out.
  const stopPrinting = options.verbose
    ? printConversation(legion.events, stderr, { you: from, reportsOwnFailure: false, markdown: await markdownFor(process.stderr) })
    : undefined;
  // Progress goes with the text reply: JSON outputs carry their own events (stream-json) or are read by a program.
  const text = options.output === undefined || options.output === 'text';
  if (text && !options.verbose && !options.quiet)
    progress = showRunProgress(legion.events, stderr, { you: from, live: process.stderr.isTTY === true });
  // An isolated agent's change waits on the person who ran this: said with the command that applies it (stream-json has its
  // own line, and --verbose prints it with the conversation). Said even with --quiet: the main tree is not what the reply implies.
  if (text && !options.verbose)
    legion.events.on('worktree:ready', (event) => {
      const files = `${event.files.length} file${event.files.length === 1 ? '' : 's'}`;
      const line = `legion: ${inertLine(event.participantId)}'s change is ready for review (${files}): legion worktrees apply ${inertLine(event.worktreeId)}`;
      if (progress) progress.say(line);
      else stderr.write(`${line}\n`);
    });
  // The printer shows later warnings as they happen; these came while the workspace opened.
  if (options.verbose) for (const warning of legion.warnings) stderr.write(`warning: ${inert(warning)}\n`);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let result: TurnResult;
  let usage: UsageSummary;
  let sessionUsage;
  try {
    const work = driver.send(message, { to, conversation: options.conversation, signal: controller.signal });
    result = await work.done;
    usage = work.usage.summary;
    // Read only for the reports that carry it: summing the session's ledger is start-up time a text reply does not need.
    if (options.output === 'json' || streaming) sessionUsage = await session.usage();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stopPrinting?.();
    progress?.stop();
    await legion.close();
  }

  // Including what went wrong while the workspace opened, before anything here could listen.
  const warnings = legion.warnings;
  // Read exactly when a JSON report is asked for.
  if (sessionUsage !== undefined) {
    const report: RunReport = {
      sessionId: session.id,
      conversationId: result.conversationId,
      from,
      to,
      status: reportedStatus(result),
      ...(result.status === 'success'
        ? { reply: result.reply, ...(result.truncated ? { truncated: true as const } : {}) }
        : result.status === 'error'
          ? { reply: null, error: result.error, code: result.code }
          : { reply: null, ...(result.requests.length > 0 ? { approvals: result.requests } : {}) }),
      questions: questions.questions,
      participants: [...involved],
      usage,
      sessionUsage: sessionUsage.total,
      warnings,
    };
    if (streaming) writeLine({ type: 'result', ...report });
    else stdout.json(report);
    // A script reads the report; a person (or its log) reads stderr: a failure is said on both.
    if (result.status === 'error') stderr.write(`legion: ${inertLine(to)} could not answer: ${inert(result.error)}\n`);
  } else if (result.status === 'success') {
    // The reply is the model's: shown as it is (rendered from markdown on a terminal), nothing in it acted on by the terminal.
    stdout.write(`${await replyText(inert(result.reply))}\n`);
    if (result.truncated)
      stderr.write(
        `warning: ${inertLine(to)}'s reply was cut off at the model's output limit (raise "maxTokens" in its model settings, or ask it to continue)\n`,
      );
  } else if (result.status === 'paused') {
    stderr.write(pauseLines([result], styleFor(process.stderr), session.id));
  } else {
    stderr.write(`legion: ${inertLine(to)} could not answer: ${inert(result.error)}\n`);
  }
  if (options.output === 'text' || options.output === undefined) {
    // Said, not only reported in JSON: the reply may rest on an assumption the asker made.
    for (const question of questions.questions.filter((asked) => !asked.answered && !asked.pending)) {
      stderr.write(
        `legion: ${inertLine(question.from)} asked ${inertLine(question.to)} "${inert(question.text)}" and was told you are unavailable (answer such questions with --answer "…")\n`,
      );
    }
  }
  if (!options.verbose) for (const warning of warnings) stderr.write(`warning: ${inert(warning)}\n`);
  return result.status === 'success' ? 0 : result.status === 'paused' ? 2 : 1;
}

/** Renders markdown for `stream` when it shows markdown (see `markdownEnabled`); loaded only then. */
async function markdownFor(stream: NodeJS.WriteStream): Promise<((text: string) => string[]) | undefined> {
  if (!markdownEnabled(stream)) return undefined;
  const { markdownLines } = await import('../render/markdown.js');
  return (text) => markdownLines(text, stream.columns || 80, styleFor(stream));
}

/** The (inert) reply for stdout: as the model wrote it when piped or under NO_COLOR, rendered from markdown on a terminal. */
async function replyText(reply: string): Promise<string> {
  const markdown = await markdownFor(process.stdout);
  return markdown ? markdown(reply).join('\n') : reply;
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

async function readMessage(words: string[], limit: number): Promise<string> {
  if (words.length > 0 && !(words.length === 1 && words[0] === '-')) return words.join(' ');
  if (process.stdin.isTTY)
    throw new LegionError('usage', 'No message given. Usage: legion run "your message" (or pipe it on standard input).');
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    // Stop reading at the limit: a runaway pipe must not fill memory first.
    if (bytes > limit) {
      throw new LegionError(
        'message_too_large',
        `The message on standard input is over the limit of ${limit} bytes (limits.maxMessageBytes). Send a file path instead of the content, or raise limits.maxMessageBytes in .legion/config.json.`,
        { limit },
      );
    }
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) throw new LegionError('usage', 'The message read from standard input is empty.');
  return text;
}
