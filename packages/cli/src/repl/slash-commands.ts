import { APPROVAL_CHOICES, type ApprovalChoice, type ApprovalRule } from '@legion-collective/core';
import { wrapTextWithAnsi, type AutocompleteItem, type SlashCommand } from '@mariozechner/pi-tui';
import type { Legion, Session } from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { approvalInputLines } from '../render/approval-input.js';
import { inertLine } from '../render/terminal-text.js';
import { changeSummary, endingLine } from '../render/message-lines.js';
import { clip, formatCost, formatTokens } from './format.js';
import { contextLines } from './context-view.js';
import { columns, displayWidth } from '../render/columns.js';
import { codeBlocks } from '../render/markdown.js';
import { compactionLine } from '../render/compaction-line.js';
import { claimsTable } from '../render/claim-lines.js';
import { conversationId } from '@legion-collective/core/internal';
import { approveChoiceOf } from '../approve-flags.js';
import { modelCommand, modelItems } from './model-command.js';
import { Worktrees } from '@legion-collective/core/management';

const style = styleFor(process.stdout);

/** What a slash command may do to the REPL around it. */
export interface ReplControl {
  readonly legion: Legion;
  readonly session: Session;
  readonly you: string;
  readonly target: { to: string; conversation?: string | undefined };
  print(text: string): void;
  clearScreen(): void;
  /** The replies shown, oldest first, as the model wrote them (made inert). */
  readonly replies: readonly string[];
  /** Puts text on the terminal's clipboard. */
  copyToClipboard(text: string): void;
  setTarget(to: string, conversation?: string): void;
  switchSession(session: Session): Promise<void>;
  /** Shows a numbered list; the next line typed picks from it. */
  pick(title: string, items: Array<{ label: string; value: string }>, chosen: (value: string) => Promise<void>): void;
  /** Shows a list to choose from with ↑/↓ and Enter; resolves to the chosen value, or undefined when cancelled (Esc). */
  choose(
    title: string,
    items: Array<{ label: string; value: string; description?: string }>,
    selected?: number,
  ): Promise<string | undefined>;
  /** Decides requests with one of core's approval choices. */
  answerApprovals(ids: string[], choice: ApprovalChoice, options?: { reason?: string }): Promise<void>;
  quit(): void;
}

interface Command {
  name: string;
  args?: string;
  description: string;
  complete?: (control: ReplControl, prefix: string) => Promise<AutocompleteItem[]> | AutocompleteItem[];
  run(control: ReplControl, args: string): Promise<void> | void;
}

/** The agent a command names (default: the one you talk to), or undefined after saying it is not one. */
function agentArgument(control: ReplControl, args: string): string | undefined {
  const id = args.trim() || control.target.to;
  if (control.legion.collective.get(id)?.type === 'agent') return id;
  control.print(
    style.red(
      `"${id}" is not an agent. Agents: ${control.legion.collective
        .agents()
        .map((agent) => agent.id)
        .join(', ')}`,
    ),
  );
  return undefined;
}

const agentItems = (control: ReplControl, prefix: string): AutocompleteItem[] =>
  control.legion.collective
    .list()
    .filter((participant) => participant.id !== control.you && participant.status !== 'retired' && participant.id.startsWith(prefix))
    .map((participant) => ({ value: participant.id, label: inertLine(participant.id), description: inertLine(participant.type) }));

const sessionItems = async (control: ReplControl, prefix: string): Promise<AutocompleteItem[]> =>
  (await control.legion.sessions.find(prefix, { limit: 20 })).map((meta) => ({
    value: meta.id,
    label: inertLine(meta.id),
    description: inertLine(`${meta.title ?? ''} last active ${meta.lastActiveAt}`.trim()),
  }));

const conversationItems = async (control: ReplControl, prefix: string): Promise<AutocompleteItem[]> =>
  (await control.session.listConversations())
    .filter((ref) => ref.name !== undefined && ref.name.startsWith(prefix))
    .map((ref) => ({ value: ref.name!, label: inertLine(ref.name!), description: inertLine(ref.conversationId) }));

const COMMANDS: Command[] = [
  { name: 'help', description: 'commands and keys', run: (control) => control.print(helpText()) },
  {
    name: 'agents',
    description: 'the participants of the collective',
    run: (control) => {
      for (const participant of control.legion.collective.list()) {
        const here = participant.id === control.target.to ? style.cyan(' ← you talk to it') : '';
        const description =
          'description' in participant && typeof participant.description === 'string'
            ? style.dim(` ${clip(participant.description, 70)}`)
            : '';
        control.print(
          `  ${style.bold(participant.id)} ${style.dim(`(${participant.type}${participant.status === 'retired' ? ', retired' : ''})`)}${description}${here}`,
        );
      }
    },
  },
  {
    name: 'to',
    args: '<agent>',
    description: 'talk to another participant',
    complete: agentItems,
    run: (control, args) => {
      const id = args.trim();
      const participant = control.legion.collective.get(id);
      if (!participant || participant.status === 'retired' || id === control.you) {
        control.print(
          style.red(
            `No participant "${id}" to talk to. Choose one of: ${agentItems(control, '')
              .map((item) => item.value)
              .join(', ')}`,
          ),
        );
        return;
      }
      control.setTarget(id, control.target.conversation);
    },
  },
  {
    name: 'convo',
    args: '<name>',
    description: 'a named conversation with the same participant (no name: the main one)',
    complete: conversationItems,
    run: (control, args) => control.setTarget(control.target.to, args.trim() || undefined),
  },
  {
    name: 'sessions',
    description: 'sessions, most recently active first',
    run: async (control) => {
      for (const meta of await control.legion.sessions.list()) {
        const current = meta.id === control.session.id ? style.cyan(' ← current') : '';
        control.print(`  ${meta.id}  ${style.dim(`last active ${meta.lastActiveAt}`)}${meta.title ? ` ${meta.title}` : ''}${current}`);
      }
    },
  },
  {
    name: 'new',
    description: 'start a new session',
    run: async (control) => control.switchSession(await control.legion.sessions.create()),
  },
  {
    name: 'resume',
    args: '[id]',
    description: 'continue another session (a picker without an id)',
    complete: sessionItems,
    run: async (control, args) => {
      const id = args.trim();
      if (id) {
        await control.switchSession(await control.legion.sessions.get(id));
        return;
      }
      const sessions = (await control.legion.sessions.list()).slice(0, 9);
      control.pick(
        'Resume which session? (type its number, then Enter; anything else cancels)',
        sessions.map((meta) => ({
          value: meta.id,
          label: `${inertLine(meta.id)}  ${style.dim(`last active ${meta.lastActiveAt}`)}${meta.id === control.session.id ? style.cyan(' ← current') : ''}`,
        })),
        async (value) => control.switchSession(await control.legion.sessions.get(value)),
      );
    },
  },
  {
    name: 'history',
    args: '[n]',
    description: 'the last n messages of this session (default 20)',
    run: async (control, args) => {
      const count = Number.parseInt(args, 10);
      for (const { conversation, message } of await control.session.recentMessages(Number.isFinite(count) && count > 0 ? count : 20)) {
        // Tool results travel in user-role messages but are the responder's tools answering it, not the initiator speaking.
        const toolResults = message.role === 'user' && message.content.every((block) => block.type === 'tool_result');
        const author =
          message.role === 'assistant'
            ? conversation.responder
            : toolResults
              ? `tools → ${conversation.responder}`
              : conversation.initiator;
        const text = message.content
          .map((block) =>
            block.type === 'text'
              ? block.text
              : block.type === 'tool_use'
                ? `[${block.name}]`
                : `[result${block.isError ? ', error' : ''}] ${block.content}${block.fileChange && !block.isError ? ` ${changeSummary(block.fileChange)}` : ''}`,
          )
          .join(' ');
        // The message that ends a failed or cancelled turn is written for its model: people read its status.
        control.print(
          `  ${style.dim(inertLine(conversation.conversationId))} ${style.bold(inertLine(author))}: ${message.ending ? endingLine(message.ending, style, 120) : clip(text, 120)}`,
        );
      }
    },
  },
  {
    name: 'approvals',
    args: '[rules [rm ID]]',
    description: 'approvals waiting in this session; "rules" lists the saved "always" rules, "rules rm ID" removes one',
    complete: (control, prefix) => ruleItems(control, prefix),
    run: async (control, args) => {
      const [sub, verb, id] = args.trim().split(/\s+/);
      if (sub === 'rules') return rulesCommand(control, verb, id);
      if (sub) return control.print(style.red(`Unknown: /approvals ${sub}. Use /approvals, /approvals rules, or /approvals rules rm ID.`));
      const pending = await control.session.approvals.list({ status: 'pending' });
      if (pending.length === 0) control.print('  Nothing is waiting for approval.');
      // Every field of the input, whole: /approvals is where a card's request is read before answering it.
      for (const view of pending)
        control.print(
          [
            `  ${inertLine(view.id)}  ${style.bold(inertLine(view.requester))} → ${inertLine(view.tool)}`,
            ...approvalInputLines(view.input, '    '),
          ].join('\n'),
        );
      if (pending.length > 0) control.print(style.dim('  Answer with /approve ID… [--this-session | --rule]  or  /reject ID reason…'));
    },
  },
  {
    name: 'approve',
    args: '<id…> [--this-session | --rule]',
    description:
      "approve waiting requests and resume the work (--this-session: for this agent this session, as a card's 2; --rule: a saved rule, as its 3)",
    complete: (control, prefix) => pendingItems(control, prefix),
    run: (control, args) => {
      const words = args.split(/\s+/).filter(Boolean);
      // The flags of `legion approve` (`--pattern` aside: /approve makes a rule of the exact call).
      const flags = ['--this-session', '--always', '--rule'];
      const ids = words.filter((word) => !flags.includes(word));
      if (ids.length === 0) return control.print(style.red('Which request? /approve ID (see /approvals)'));
      const choice = approveChoiceOf({
        thisSession: words.includes('--this-session'),
        always: words.includes('--always'),
        rule: words.includes('--rule'),
      });
      if (!choice.ok) return control.print(style.red(choice.error));
      if (choice.deprecation) control.print(style.dim(`  ${choice.deprecation}`));
      return control.answerApprovals(ids, choice.choice);
    },
  },
  {
    name: 'reject',
    args: '<id> <reason…>',
    description: 'reject a waiting request, with a reason the agent sees',
    complete: (control, prefix) => pendingItems(control, prefix),
    run: (control, args) => {
      const [id, ...reason] = args.trim().split(/\s+/);
      if (!id) return control.print(style.red('Which request? /reject ID reason (see /approvals)'));
      return control.answerApprovals([id], 'reject', reason.length > 0 ? { reason: reason.join(' ') } : {});
    },
  },
  {
    name: 'cost',
    description: 'tokens and cost of this session per participant, own and with delegates',
    run: async (control) => {
      const usage = await control.session.usage();
      const unpriced = usage.total.unpricedCalls ? style.dim(` (${usage.total.unpricedCalls} without a price)`) : '';
      const rows = [
        ['', style.dim('own'), '', style.dim('with delegates'), '', ''],
        [
          style.bold('session'),
          '',
          '',
          formatTokens(usage.total),
          formatCost(usage.total.costUsd),
          `${usage.total.calls} calls${unpriced}`,
        ],
        ...Object.entries(usage.byParticipant).map(([id, totals]) => [
          inertLine(id),
          formatTokens(totals.own),
          formatCost(totals.own.costUsd, totals.own.unpricedCalls),
          formatTokens(totals.withDelegates),
          formatCost(totals.withDelegates.costUsd, totals.withDelegates.unpricedCalls),
          '',
        ]),
      ];
      control.print(indent(columns(rows)));
    },
  },
  {
    name: 'compact',
    description: "summarize the older part of this conversation's context now (the log keeps it all)",
    run: async (control) => {
      const id = conversationId({ initiator: control.you, responder: control.target.to, name: control.target.conversation });
      try {
        control.print(`  ${compactionLine(id, await control.session.compact(id, { reason: 'manual' }))}`);
      } catch (error) {
        control.print(style.red(`error: ${error instanceof Error ? error.message : String(error)}`));
      }
    },
  },
  {
    name: 'worktrees',
    args: '[apply|discard <id>]',
    description: "isolated agents' changes awaiting review: list them, apply one to the main tree, or discard it",
    run: async (control, args) => {
      const worktrees = new Worktrees(control.legion.paths.root);
      const [action, id] = args.trim().split(/\s+/);
      if (action === 'apply' || action === 'discard') {
        if (!id) return control.print(style.red(`Name the worktree: /worktrees ${action} <id> (/worktrees lists them).`));
        if (action === 'discard') {
          const discarded = await worktrees.discard(id);
          return control.print(discarded.ok ? `  Discarded worktree ${inertLine(id)}.` : style.red(discarded.error));
        }
        const applied = await worktrees.apply(id);
        if (!applied.ok) return control.print(style.red(applied.error));
        const { outcome } = applied;
        if (outcome.status === 'applied')
          return control.print(
            `  Applied worktree ${inertLine(id)}: ${outcome.files.map(inertLine).join(', ') || 'nothing left to change'}.`,
          );
        return control.print(
          style.yellow(
            `  Not applied: worktree ${inertLine(id)} conflicts with the main tree, which is unchanged.\n${outcome.conflicts
              .map((conflict) => `    ${inertLine(conflict.path)}: ${conflict.reason}`)
              .join('\n')}`,
          ),
        );
      }
      if (action) return control.print(style.red(`/worktrees takes apply <id> or discard <id>, not "${inertLine(action)}".`));
      const entries = await worktrees.list();
      if (entries.length === 0) return control.print('  No worktrees.');
      control.print(
        entries
          .map((entry) => {
            const files = entry.record?.files?.length;
            const who = entry.record ? ` ${inertLine(entry.record.agentId)} for ${inertLine(entry.record.callerId)}` : '';
            return `  ${style.bold(inertLine(entry.id))}  ${entry.state === 'review' ? 'awaiting review' : entry.state}${who}${files === undefined ? '' : `, ${files} file${files === 1 ? '' : 's'}`}`;
          })
          .join('\n'),
      );
    },
  },
  {
    name: 'claims',
    args: '[release <path>]',
    description: 'the files running turns claimed (other agents cannot write them until the turn ends); release one by hand',
    complete: async (control, prefix) =>
      'release '.startsWith(prefix)
        ? [{ value: 'release ', label: 'release', description: 'free a claimed file' }]
        : prefix.startsWith('release ')
          ? (await control.legion.listFileClaims())
              .filter((claim) => `release ${claim.path}`.startsWith(prefix))
              .map((claim) => ({
                value: `release ${claim.path}`,
                label: inertLine(claim.path),
                description: inertLine(claim.participantId),
              }))
          : [],
    run: async (control, args) => {
      const [verb, ...rest] = args.trim().split(/\s+/);
      if (verb === 'release') {
        const path = rest.join(' ');
        if (!path) return control.print(style.red('usage: /claims release <path> (the path as /claims lists it)'));
        try {
          const claim = await control.legion.releaseFileClaim(path);
          control.print(`  Released ${inertLine(claim.path)} (held by ${inertLine(claim.participantId)} since ${claim.since}).`);
        } catch (error) {
          control.print(style.red(`error: ${error instanceof Error ? error.message : String(error)}`));
        }
        return;
      }
      if (verb) return control.print(style.red(`/claims takes no "${inertLine(verb)}": /claims, or /claims release <path>`));
      for (const line of claimsTable(await control.legion.listFileClaims()).split('\n')) control.print(`  ${line}`);
    },
  },
  {
    name: 'tools',
    args: '[agent]',
    description: "the tools an agent's model sees",
    complete: agentItems,
    run: async (control, args) => {
      const id = agentArgument(control, args);
      if (id === undefined) return;
      // The engine's own view: what the model is shown, and why the rest is hidden.
      const view = await control.legion.describeTools(id);
      const shown = view.tools.filter((tool) => tool.visible);
      control.print(`  ${style.bold(id)} sees ${shown.length} tools:`);
      for (const tool of shown) control.print(`    ${tool.name} ${style.dim(`(${tool.source}, ${tool.approval.mode})`)}`);
      const hidden = view.tools.filter((tool) => !tool.visible);
      if (hidden.length > 0)
        control.print(style.dim(`  hidden: ${hidden.map((tool) => `${tool.name} (${tool.hiddenBecause ?? 'not permitted'})`).join(', ')}`));
      for (const missing of view.missing)
        control.print(style.yellow(`  missing: ${missing.pattern} (${missing.source}): ${missing.reason}`));
    },
  },
  {
    name: 'context',
    args: '[agent]',
    description: "what fills the agent's context: system prompt, tool definitions, messages, against its window",
    complete: agentItems,
    run: async (control, args) => {
      const id = agentArgument(control, args);
      if (id === undefined) return;
      // The conversation you have with it here (another agent's, when you name one you do not talk to: yours with it).
      const report = await control.legion.contextReport(id, {
        session: control.session,
        initiator: control.you,
        name: id === control.target.to ? control.target.conversation : undefined,
      });
      for (const line of contextLines(report, style)) control.print(line);
    },
  },
  {
    name: 'model',
    args: '[agent] [provider/model]',
    description:
      "switch an agent's model (default: the agent you talk to; a list to choose from without a model), saved in its participant file",
    complete: modelItems,
    run: modelCommand,
  },
  {
    name: 'raw',
    args: '[n]',
    description: 'the last reply (or the nth from last) again, as the markdown the model wrote',
    run: (control, args) => {
      const reply = replyArgument(control, args);
      if (reply !== undefined) control.print(reply);
    },
  },
  {
    name: 'copy',
    args: '[n]',
    description: "the last reply's code block (the nth with n) to the clipboard, code only; without a code block, the reply",
    run: (control, args) => copyCommand(control, args),
  },
  {
    name: 'clear',
    description: 'clear the screen; what was on it stays in the scrollback (the session is untouched)',
    run: (control) => control.clearScreen(),
  },
  { name: 'quit', description: 'leave (Ctrl-D does too)', run: (control) => control.quit() },
];

/** The reply `/raw n` names (1, the default, is the last), or undefined after saying there is none. */
function replyArgument(control: ReplControl, args: string): string | undefined {
  const back = args.trim() === '' ? 1 : Number.parseInt(args, 10);
  const reply = Number.isInteger(back) && back > 0 ? control.replies[control.replies.length - back] : undefined;
  if (reply === undefined)
    control.print(
      style.red(
        control.replies.length === 0 ? 'No reply yet.' : `Which reply? /raw 1 is the last, /raw ${control.replies.length} the first kept.`,
      ),
    );
  return reply;
}

/**
 * `/copy [n]`: the code, without its fences or the frame it is shown in, goes to the clipboard
 * through the terminal (OSC 52, which works over ssh and in tmux with set-clipboard on), and is
 * printed bare below, so a terminal that ignores OSC 52 still shows exactly what to select.
 * The last block by default: a reply's final code block is most often the one it ends on.
 */
function copyCommand(control: ReplControl, args: string): void {
  const reply = control.replies.at(-1);
  if (reply === undefined) return control.print(style.red('No reply yet.'));
  const blocks = codeBlocks(reply);
  if (blocks.length === 0) {
    control.copyToClipboard(reply);
    return control.print(style.dim('  The last reply has no code block: its text is on the clipboard (OSC 52).'));
  }
  const number = args.trim() === '' ? blocks.length : Number.parseInt(args, 10);
  const block = Number.isInteger(number) ? blocks[number - 1] : undefined;
  if (!block) return control.print(style.red(`Which code block? The last reply has ${blocks.length}: /copy 1 to /copy ${blocks.length}.`));
  control.copyToClipboard(block.code);
  const lines = block.code.split('\n').length;
  control.print(
    style.dim(
      `  code block ${number} of ${blocks.length}${block.language ? ` (${inertLine(block.language)})` : ''}, ${lines} line${lines === 1 ? '' : 's'}: on the clipboard (OSC 52), and bare below`,
    ),
  );
  control.print(block.code);
}

/**
 * Terms and what they mean in two columns, each meaning wrapped under itself
 * (a hanging indent), so a long one does not run back under the terms.
 */
function definitions(rows: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  const termWidth = Math.max(...rows.map(([term]) => displayWidth(term)));
  const room = Math.max(20, width - termWidth - 4);
  return rows.flatMap(([term, meaning]) =>
    wrapTextWithAnsi(meaning, room).map(
      (line, index) => `  ${index === 0 ? term + ' '.repeat(termWidth - displayWidth(term)) : ' '.repeat(termWidth)}  ${style.dim(line)}`,
    ),
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

async function pendingItems(control: ReplControl, prefix: string): Promise<AutocompleteItem[]> {
  return (await control.session.approvals.list({ status: 'pending' }))
    .filter((view) => view.id.startsWith(prefix))
    .map((view) => ({ value: view.id, label: view.id, description: `${view.requester} → ${view.tool}` }));
}

function ruleItems(control: ReplControl, prefix: string): AutocompleteItem[] {
  const words = ['rules', ...safeRules(control).map((rule) => `rules rm ${rule.id}`)];
  return words.filter((word) => word.startsWith(prefix)).map((word) => ({ value: word, label: word }));
}

function safeRules(control: ReplControl): ApprovalRule[] {
  try {
    return control.legion.approvalRules.list();
  } catch {
    return [];
  }
}

/** `/approvals rules` and `/approvals rules rm ID`: the saved "approve always" rules, as `legion approvals rules` shows them. */
function rulesCommand(control: ReplControl, verb: string | undefined, id: string | undefined): void {
  try {
    if (verb === 'rm') {
      if (!id) return control.print(style.red('Which rule? /approvals rules rm ID (see /approvals rules)'));
      const removed = control.legion.approvalRules.remove(id);
      return control.print(
        `  removed ${id}${removed ? ` (${removed.participant} → ${removed.tool}${removed.pattern !== undefined ? ` ${removed.pattern}` : ''})` : ''}: those calls ask again`,
      );
    }
    if (verb) return control.print(style.red(`Unknown: /approvals rules ${verb}. Use /approvals rules, or /approvals rules rm ID.`));
    const rules = control.legion.approvalRules.list();
    if (rules.length === 0)
      return control.print('  No saved rules. Answer a card with 3 (approve always), or /approve ID --rule, to make one.');
    for (const rule of rules) {
      control.print(
        `  ${rule.id}  ${style.bold(rule.participant)} → ${rule.tool}${rule.pattern !== undefined ? ` ${rule.pattern}` : style.dim(' (any call)')}  ${style.dim(`${rule.createdAt} by ${rule.createdBy}${rule.medium ? ` (${rule.medium})` : ''}`)}`,
      );
    }
    control.print(style.dim('  Remove one with /approvals rules rm ID (or legion approvals rules rm ID).'));
  } catch (error) {
    control.print(style.red(`error: ${error instanceof Error ? error.message : String(error)}`));
  }
}

export function helpText(width = process.stdout.columns || 80): string {
  const commands = COMMANDS.map((command) => [`/${command.name}${command.args ? ` ${command.args}` : ''}`, command.description] as const);
  return [
    style.bold('Commands'),
    ...definitions([...commands, ['!command', 'run a shell command here and show its output (not sent to the agent)']], width),
    style.bold('Keys'),
    ...definitions(
      [
        ['Enter', 'send'],
        ['Shift+Enter, Alt+Enter, Ctrl-J, \\ Enter', 'new line'],
        ['↑ ↓', 'history'],
        ['Ctrl-R', 'search history'],
        ['Tab', 'complete'],
        ['@path', 'a file reference'],
        ['Esc, Ctrl-C', 'cancel the running turn (Ctrl-C on typed text clears the text instead)'],
        ['Ctrl-O', 'expand the last folded result or message (again: the one before; or a card too tall for the terminal)'],
        ['Ctrl-T', 'the last reply as the model wrote it, raw markdown (again: the one before); /raw n does too'],
        ['Ctrl-C twice, Ctrl-D', 'quit (Ctrl-C twice on an empty line)'],
      ],
      width,
    ),
    `  On an approval card (input empty): ↑/↓ or a number, then Enter · ${APPROVAL_CHOICES.map((words) => `${words.number} ${words.label.toLowerCase()}`).join(' · ')}`,
  ].join('\n');
}

/** The commands as the editor's autocomplete knows them (names, then arguments). */
export function slashCommands(control: () => ReplControl): SlashCommand[] {
  return COMMANDS.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.args ? { argumentHint: command.args } : {}),
    ...(command.complete ? { getArgumentCompletions: async (prefix: string) => command.complete!(control(), prefix.trim()) } : {}),
  }));
}

/** Runs `/name args`; says so when there is no such command. */
export async function runSlashCommand(control: ReplControl, line: string): Promise<void> {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  const name = match?.[1] ?? '';
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const near = COMMANDS.filter((candidate) => candidate.name.startsWith(name.slice(0, 2))).map((candidate) => `/${candidate.name}`);
    control.print(style.red(`Unknown command /${name}.${near.length > 0 ? ` Did you mean ${near.join(', ')}?` : ''} /help lists them.`));
    return;
  }
  await command.run(control, match?.[2] ?? '');
}
