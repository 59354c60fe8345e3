import { Legion, LegionError, type QuestionView, type Session } from '@legion-collective/core';
import { styleFor, type Style } from '../render/style.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inert, inertLine } from '../render/terminal-text.js';
import { pauseLines, reportedStatus } from './pause-lines.js';

interface QuestionOptions {
  workspace?: string;
  session?: string;
  all?: boolean;
  json?: boolean;
}

/** The medium an answer given with `legion answer` is recorded with. */
export const CLI_MEDIUM = 'cli';

/** `legion questions`: what agents asked the user and still wait for (or, with --all, every question). */
export async function questionsCommand(options: QuestionOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session = options.session ? await legion.sessions.get(options.session) : await legion.sessions.latest();
    const views = session ? await session.questions.list(options.all ? {} : { status: 'pending' }) : [];
    if (options.json) {
      stdout.json({ sessionId: session?.id ?? null, questions: views });
      return 0;
    }
    if (views.length === 0) {
      stdout.write(options.all ? 'No questions in this session.\n' : 'No question is waiting for an answer.\n');
      return 0;
    }
    const style = styleFor(process.stdout);
    for (const view of views) stdout.write(`${describeQuestion(view, style)}\n`);
    if (views.some((view) => view.status === 'pending')) stdout.write(style.dim('\nAnswer with: legion answer ID "your answer"\n'));
    return 0;
  } finally {
    await legion.close();
  }
}

/**
 * `legion answer`: answers a waiting question as the user; the process whose agent asked it goes
 * on with it. With --no-resume, a chain whose asking process ended stays paused, for `legion
 * questions resume` to continue from any process.
 */
export async function answerQuestionCommand(
  id: string,
  text: string,
  options: Omit<QuestionOptions, 'all'> & { as?: string; resume?: boolean },
): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session = await sessionOf(legion, id, options.session);
    const outcome = await session.answerQuestion(id, text, {
      medium: CLI_MEDIUM,
      resume: options.resume !== false,
      ...(options.as !== undefined ? { answeredBy: options.as } : {}),
    });
    if (outcome.status === 'error') throw new LegionError('question_not_answered', outcome.error, { questionId: id });
    const resumed = outcome.resumed ?? [];
    if (options.json) {
      stdout.write(
        `${JSON.stringify({ sessionId: session.id, questionId: id, status: 'answered', ...(outcome.resumed ? { resumed: resumed.map((result) => ({ ...result, status: reportedStatus(result) })) } : {}), ...(outcome.waiting ? { waiting: true } : {}) })}\n`,
      );
    } else if (outcome.waiting) {
      stdout.write(
        `Answered ${id}; the agent that asked stays paused until resumed: legion questions resume ${id} --session ${session.id}\n`,
      );
    } else if (!outcome.resumed) {
      stdout.write(`Answered ${id}; the agent that asked goes on with it.\n`);
    } else {
      // The asking process had ended: the chain went on here.
      const style = styleFor(process.stdout);
      for (const result of resumed)
        if (result.status !== 'paused')
          stdout.write(
            `${result.status === 'success' ? inert(result.reply) : style.red(`${inertLine(result.conversationId)} failed: ${inert(result.error)}`)}\n`,
          );
    }
    if (resumed.some((result) => result.status === 'error')) return 1;
    // Like `legion approve`: 2 says the work paused again, on an approval or another question.
    const paused = resumed.filter((result) => result.status === 'paused');
    if (paused.length > 0 && !options.json) stderr.write(pauseLines(paused, styleFor(process.stderr), session.id));
    return paused.length > 0 ? 2 : 0;
  } finally {
    await legion.close();
  }
}

/**
 * `legion questions resume`: continues the chains that wait on questions answered but not resumed
 * (`legion answer --no-resume`, or an answering process that ended first), each once.
 */
export async function resumeAnsweredCommand(ids: string[], options: Omit<QuestionOptions, 'all'>): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session =
      ids.length > 0 && options.session === undefined
        ? await sessionOf(legion, ids[0]!, undefined)
        : await latestOrGiven(legion, options.session);
    const outcome = await session.resumeAnswered({ ids });
    if (outcome.status === 'error') throw new LegionError('question_not_resumed', outcome.error);
    const continuing = outcome.continuing ?? [];
    if (options.json) {
      stdout.json({
        sessionId: session.id,
        resumed: outcome.resumed.map((result) => ({ ...result, status: reportedStatus(result) })),
        ...(continuing.length > 0 ? { continuing } : {}),
      });
    } else {
      const style = styleFor(process.stdout);
      for (const result of outcome.resumed)
        if (result.status !== 'paused')
          stdout.write(
            `${result.status === 'success' ? inert(result.reply) : style.red(`${inertLine(result.conversationId)} failed: ${inert(result.error)}`)}\n`,
          );
      for (const conversationId of continuing)
        stdout.write(`The turn in ${conversationId} went on in another process; nothing to resume here.\n`);
      if (outcome.resumed.length === 0 && continuing.length === 0)
        stdout.write('Nothing waits to be resumed: no answered question has a paused agent left.\n');
    }
    if (outcome.resumed.some((result) => result.status === 'error')) return 1;
    // Like `legion answer`: 2 says the work paused again, on an approval or another question.
    const paused = outcome.resumed.filter((result) => result.status === 'paused');
    if (paused.length > 0 && !options.json) stderr.write(pauseLines(paused, styleFor(process.stderr), session.id));
    return paused.length > 0 ? 2 : 0;
  } finally {
    await legion.close();
  }
}

async function latestOrGiven(legion: Legion, sessionId: string | undefined): Promise<Session> {
  if (sessionId !== undefined) return legion.sessions.get(sessionId);
  const latest = await legion.sessions.latest();
  if (!latest) throw new LegionError('no_session', 'There are no sessions yet, so no answered question waits to be resumed.');
  return latest;
}

/** The session that holds the question: the one given, else the latest, else any (ids are unique across sessions). */
async function sessionOf(legion: Legion, id: string, sessionId: string | undefined): Promise<Session> {
  if (sessionId !== undefined) return legion.sessions.get(sessionId);
  const latest = await legion.sessions.latest();
  if (!latest) throw new LegionError('no_session', 'There are no sessions yet, so no question waits for an answer.');
  if (await latest.questions.view(id)) return latest;
  for (const meta of await legion.sessions.list()) {
    if (meta.id === latest.id) continue;
    const session = await legion.sessions.get(meta.id);
    if (await session.questions.view(id)) return session;
  }
  // The latest session says which questions there are, in its own words.
  return latest;
}

/** One question on one line (its text may span more), styled for the stream it is written to. */
export function describeQuestion(view: QuestionView, style: Style): string {
  const status =
    view.status === 'pending' ? style.yellow('pending ') : view.status === 'answered' ? style.green('answered') : style.dim('withdrawn');
  const outcome =
    view.status === 'answered' && view.answer
      ? style.dim(
          ` — ${inertLine(view.answer.answeredBy)}${view.answer.medium ? ` (in ${inertLine(view.answer.medium)})` : ''}: ${inert(view.answer.text)}`,
        )
      : view.status === 'withdrawn'
        ? style.dim(` — ${inert(view.withdrawnReason ?? '')}`)
        : style.dim(` — ${view.chain.map(inertLine).join(' → ')} waits`);
  return `${inertLine(view.id)}  ${status}  ${inertLine(view.from)} → ${inertLine(view.user)}: ${inert(view.text)}${outcome}`;
}
