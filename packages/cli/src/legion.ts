// Entry point. Only commander loads up front; each command imports core and its
// own modules when it runs, so `legion --help` and `--version` stay fast. The
// build (scripts/build.mjs) bundles from here: every `import()` of a command
// below becomes a chunk of its own, loaded when that command runs.
import { Command, Option } from 'commander';
import { helpWhenAlone } from './command-groups.js';
import { didYouMean } from './did-you-mean.js';
import { examples } from './help-examples.js';
import { registerManagementCommands } from './management-commands.js';
import { runCli } from './run-cli.js';

// Output piped into `head` and the like: a closed pipe means the reader has seen enough.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

/** This package's version, written in by the build (scripts/build.mjs) rather than read from package.json at every start. */
declare const LEGION_VERSION: string;

const program = new Command('legion')
  .description('A persistent multi-agent collective: agents and you, talking through directional conversations that live on disk.')
  .version(LEGION_VERSION, '-v, --version')
  .option('-w, --workspace <dir>', 'workspace directory (default: the nearest one holding .legion/)')
  .showHelpAfterError('(add --help for usage)')
  // Unknown commands and long options get "(Did you mean …?)"; subcommands inherit it (and the line above).
  .showSuggestionAfterError(true)
  .addHelpText(
    'after',
    examples([
      'legion init                                  # a workspace with a starting team',
      'legion run "What can this team do?"          # one message, headless',
      'legion sessions                              # sessions, most recently active first',
      'legion log --follow                          # watch the entry conversation live',
      'source <(legion completion bash)             # Tab completes commands, options, session ids (also zsh, fish)',
      "legion <command> --help                      # each command's options and examples",
    ]),
  );

program
  .command('init')
  .description('create .legion/ here (or in DIR) with a starting team: you, a coordinator and two specialists')
  .argument('[dir]', 'directory to initialise', '.')
  .addHelpText('after', examples(['legion init', 'legion init ../other-project']))
  .action((dir: string) => runCli(async () => (await import('./commands/init.js')).initCommand(dir)));

program
  .command('demo')
  .description('watch a scripted collective work (no API key): you → coordinator → developer, with tool calls')
  .option('--pace <ms>', 'pause between model steps, to follow along (default: 350 on a terminal, else 0)')
  .option('--dir <dir>', 'where to create the demo workspace (default: a new temp directory)')
  .addHelpText('after', examples(['legion demo', 'legion demo --pace 0 --dir /tmp/legion-demo']))
  .action((options: { pace?: string; dir?: string }) => runCli(async () => (await import('./commands/demo.js')).demoCommand(options)));

program
  .command('run')
  .description('send one message headlessly and print the reply (resumes the latest session)')
  .argument('[message...]', 'the message; "-" or nothing reads it from standard input')
  .option('--to <participant>', 'who receives it (default: the entry agent)')
  .option('--from <participant>', 'who sends it (default: the first user participant)')
  .option('--session <id>', 'session to continue (default: the latest)')
  .option('--new-session', 'start a new session')
  .option('--conversation <name>', 'named conversation, for a parallel thread with the same participant')
  .addOption(
    new Option('--output <format>', 'text (the reply), json (one report) or stream-json (one JSON line per event, then the report)')
      .choices(['text', 'json', 'stream-json'])
      .default('text'),
  )
  .option('--verbose', 'show the conversation on stderr as it happens')
  .option('-q, --quiet', 'no progress on stderr (by default: delegations, tool calls and retries; a spinner on a terminal)')
  .addOption(
    new Option(
      '--approve <mode>',
      'answer tool approvals: ask on the terminal, approve all, or reject all (default: config approval.headless, else prompt)',
    ).choices(['prompt', 'auto', 'deny']),
  )
  .addOption(
    new Option(
      '--answer-questions <mode>',
      'when an agent asks you something: ask (on the terminal; else a surface of another process, else pause until legion answer), deny (it is told you are unavailable) or text (it gets --answer)',
    ).choices(['ask', 'deny', 'text']),
  )
  .option('--answer <text>', 'the reply every question from an agent gets (implies --answer-questions text)')
  .addHelpText(
    'after',
    examples([
      'legion run "Summarise the open issues"',
      'echo "Review src/app.ts" | legion run --to reviewer',
      'legion run --output json --approve deny "Tidy the README"',
      'legion run --output stream-json "Fix the failing test" | jq -c \'select(.type == "tool:call")\'',
      'legion run --answer "Use your best judgement" "Plan the release"',
    ]),
  )
  .action((words: string[], options: Record<string, unknown>) =>
    // A headless run leaves nothing running once it has answered: it need not wait for V8's background work.
    runCli(
      async () =>
        (await import('./commands/run.js')).runCommand(words, { ...options, workspace: program.opts<{ workspace?: string }>().workspace }),
      { exitWhenDone: true },
    ),
  );

const approvals = program
  .command('approvals')
  .description('list tool calls waiting for approval in the latest session (or --session)')
  .option('--session <id>', 'session (default: the latest)')
  .option('--all', 'also list decisions already made')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion approvals', 'legion approvals --all --json']))
  .action((options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/approvals.js')).approvalsCommand({
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );

approvals
  .command('resume')
  .description('continue the turns whose approvals were decided but not resumed (legion approve --no-resume), each once, from this process')
  .argument('[ids...]', 'approval request ids whose turns to resume (default: every decided one whose turn still waits)')
  .option('--session <id>', 'session (default: the latest)')
  .option('--json', 'one JSON object')
  .addHelpText(
    'after',
    examples(['legion approvals resume', 'legion approvals resume --session 2026-…', 'legion approvals resume 3f2a… --json']),
  )
  .addHelpText(
    'after',
    '\nExit status: 0 when every resumed turn ended (or nothing waited), 2 when one paused again on an approval, 1 on an unknown or undecided id or a resumed turn that failed.',
  )
  // `--session`/`--json` may land on `approvals` (commander reads a parent's options anywhere): the merged options have them either way.
  .action((ids: string[], _options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/approvals.js')).resumeCommand(
        ids,
        command.optsWithGlobals<{ json?: boolean; session?: string; workspace?: string }>(),
      ),
    ),
  );

const rules = approvals
  .command('rules')
  .description('list "approve always" rules: which participant may run which tool, on what pattern, without asking (in every session)')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion approvals rules', 'legion approvals rules --json', 'legion approvals rules rm rule_3f2a…']))
  // `--json` may land on `approvals` (commander reads a parent's options anywhere): the merged options have it either way.
  .action((_options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/approval-rules.js')).rulesCommand(command.optsWithGlobals<{ json?: boolean; workspace?: string }>()),
    ),
  );

rules
  .command('rm')
  .description('revoke "approve always" rules by id: those calls ask again')
  .argument('<ids...>', 'rule ids (see "legion approvals rules")')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion approvals rules rm rule_3f2a…', 'legion approvals rules rm rule_3f2a… rule_9b1c…']))
  .action((ids: string[], _options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/approval-rules.js')).removeRulesCommand(
        ids,
        command.optsWithGlobals<{ json?: boolean; workspace?: string }>(),
      ),
    ),
  );

const claims = program
  .command('claims')
  .description('list the files running turns claimed (path, holder, since, session): another agent cannot write them until the turn ends')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion claims', 'legion claims --json', 'legion claims release src/app.ts']))
  .action((_options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/claims.js')).claimsCommand(command.optsWithGlobals<{ json?: boolean; workspace?: string }>()),
    ),
  );

claims
  .command('release')
  .description("free a file a running turn claimed, so other agents may write it (the holder's next write claims it again)")
  .argument('<path>', 'the file, relative to the current folder (see "legion claims")')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion claims release src/app.ts']))
  .action((path: string, _options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/claims.js')).releaseClaimCommand(path, command.optsWithGlobals<{ json?: boolean; workspace?: string }>()),
    ),
  );

for (const decision of ['approve', 'reject'] as const) {
  const command = program
    .command(decision)
    .description(`${decision} waiting tool calls by id, as the user, and resume the turns that waited on them`)
    .argument('<ids...>', 'approval request ids (see "legion approvals")')
    .option('--session <id>', 'session (default: the latest)')
    .option('--as <participant>', 'decide as this participant (default: the first user)')
    .option('--no-resume', 'only record the decision; the paused turn goes on when any process runs "legion approvals resume"')
    .option('--json', 'one JSON object');
  if (decision === 'approve') {
    command
      .option('--this-session', "also allow this tool for this agent for the rest of the session (a prompt's 2, approve for this session)")
      .option('--always', 'deprecated: the same as --this-session; "always" is a rule everywhere else (--rule)')
      // A flag and a separate --pattern, not "--rule [PATTERN]": an optional value would swallow the id after it (legion approve --rule apr_1).
      .option(
        '--rule',
        'also make an "approve always" rule (a prompt\'s 3, approve always): this agent, this tool, this exact command or path, in every session (see "legion approvals rules")',
      )
      .option(
        '--pattern <glob>',
        'the rule\'s pattern instead of the exact call (implies --rule): a command glob ("git status*") or a path glob ("src/**")',
      );
  } else command.option('--reason <text>', 'why, shown to the agent so it can adapt');
  command.addHelpText(
    'after',
    examples(
      decision === 'approve'
        ? [
            'legion approve 3f2a…',
            'legion approve --this-session 3f2a…',
            'legion approve --rule 3f2a…',
            "legion approve --pattern 'git status*' 3f2a…",
            'legion approve --no-resume 3f2a…',
          ]
        : ['legion reject 3f2a… --reason "not in this repository"', 'legion reject --no-resume 3f2a… --reason "…"'],
    ),
  );
  command.action((ids: string[], options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/approvals.js')).answerCommand(decision, ids, {
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );
}

const questions = program
  .command('questions')
  .description('list questions agents asked the user that wait for an answer, in the latest session (or --session)')
  .option('--session <id>', 'session (default: the latest)')
  .option('--all', 'also list questions already answered or withdrawn')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion questions', 'legion questions --all --json']))
  .action((options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/questions.js')).questionsCommand({
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );

questions
  .command('resume')
  .description(
    'continue the agents whose questions were answered but not resumed (legion answer --no-resume), each once, from this process',
  )
  .argument('[ids...]', 'question ids whose agents to resume (default: every answered one whose agent still waits)')
  .option('--session <id>', 'session (default: the one that holds the first id, else the latest)')
  .option('--json', 'one JSON object')
  .addHelpText(
    'after',
    examples(['legion questions resume', 'legion questions resume q_3f2a…', 'legion questions resume --session 2026-… --json']),
  )
  .addHelpText(
    'after',
    '\nExit status: 0 when every resumed turn ended (or nothing waited), 2 when one paused on an approval, 1 on an unknown or unanswered id or a resumed turn that failed.',
  )
  // `--session`/`--json` may land on `questions` (commander reads a parent's options anywhere): the merged options have them either way.
  .action((ids: string[], _options: unknown, command: Command) =>
    runCli(async () =>
      (await import('./commands/questions.js')).resumeAnsweredCommand(
        ids,
        command.optsWithGlobals<{ json?: boolean; session?: string; workspace?: string }>(),
      ),
    ),
  );

program
  .command('answer')
  .description('answer a waiting question by id, as the user: the process whose agent asked it (a REPL, legion serve) goes on with it')
  .argument('<question-id>', 'question id (see "legion questions")')
  .argument('<text>', 'the answer')
  .option('--session <id>', 'session (default: the one that holds the question)')
  .option('--as <participant>', 'answer as this user (default: the user asked)')
  .option(
    '--no-resume',
    'only record the answer; an agent whose asking process ended goes on when any process runs "legion questions resume"',
  )
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion answer q_3f2a… "use port 8080"', 'legion answer --no-resume q_3f2a… "use port 8080"']))
  .action((id: string, text: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/questions.js')).answerQuestionCommand(id, text, {
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );

const workspace = (): string | undefined => program.opts<{ workspace?: string }>().workspace;

const sessions = program
  .command('sessions')
  .description('list, show, rename and remove sessions (alone: list them, most recently active first)')
  .option('--json', 'one JSON object')
  // `legion sessions` lists; a word after it that is no subcommand is a typo, answered below.
  .allowExcessArguments(true)
  .addHelpText(
    'after',
    examples([
      'legion sessions',
      'legion sessions show 20261125-214500-1a2b3c',
      'legion sessions rename 20261125-214500-1a2b3c "Flaky login test"',
      'legion sessions rm 20261125-214500-1a2b3c --yes',
    ]),
  )
  .action((options: Record<string, unknown>, command: Command) => {
    const [word] = command.args;
    if (word !== undefined)
      command.error(
        `error: unknown command '${word}' for 'legion sessions'${didYouMean(
          word,
          command.commands.map((sub) => sub.name()),
        )}`,
        { code: 'commander.unknownCommand' },
      );
    return runCli(async () => (await import('./commands/sessions.js')).sessionsListCommand({ ...options, workspace: workspace() }));
  });

/** A subcommand's options; `--json` anywhere after `sessions` is read by `sessions` itself, so it is taken from there too. */
const sessionOptions = (options: Record<string, unknown>): Record<string, unknown> => ({ ...sessions.opts(), ...options });

sessions
  .command('list')
  .description('every session, most recently active first')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion sessions list', 'legion sessions list --json']))
  .action((options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/sessions.js')).sessionsListCommand({ ...sessionOptions(options), workspace: workspace() }),
    ),
  );

sessions
  .command('show')
  .description("a session's record, conversations, waiting approvals and model usage")
  .argument('<id>', 'session id (see "legion sessions")')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion sessions show 20261125-214500-1a2b3c', 'legion sessions show 20261125-214500-1a2b3c --json']))
  .action((id: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/sessions.js')).sessionsShowCommand(id, { ...sessionOptions(options), workspace: workspace() }),
    ),
  );

sessions
  .command('rename')
  .description(
    'give a session a title (shown by legion sessions, /resume, the browser and VS Code; a new session takes one from its first message)',
  )
  .argument('<id>', 'session id (see "legion sessions")')
  .argument('<title>', 'the new title (quote it)')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion sessions rename 20261125-214500-1a2b3c "Flaky login test"']))
  .action((id: string, title: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/sessions.js')).sessionsRenameCommand(id, title, { ...sessionOptions(options), workspace: workspace() }),
    ),
  );

sessions
  .command('rm')
  .description('delete a session and all it stored (asks first; refuses while a running turn holds it)')
  .argument('<id>', 'session id (see "legion sessions")')
  .option('-y, --yes', 'do not ask (needed without a terminal)')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion sessions rm 20261125-214500-1a2b3c', 'legion sessions rm 20261125-214500-1a2b3c --yes']))
  .action((id: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/sessions.js')).sessionsRemoveCommand(id, { ...sessionOptions(options), workspace: workspace() }),
    ),
  );

const worktrees = program
  .command('worktrees')
  .description('the git worktrees of isolated agents and delegations: list them, show, apply or discard their change (alone: list)')
  .option('--json', 'one JSON object')
  // `legion worktrees` lists; a word after it that is no subcommand is a typo, answered below.
  .allowExcessArguments(true)
  .addHelpText(
    'after',
    examples([
      'legion worktrees',
      'legion worktrees diff developer-3fa9c2',
      'legion worktrees apply developer-3fa9c2',
      'legion worktrees discard developer-3fa9c2',
    ]),
  )
  .action((options: Record<string, unknown>, command: Command) => {
    const [word] = command.args;
    if (word !== undefined)
      command.error(
        `error: unknown command '${word}' for 'legion worktrees'${didYouMean(
          word,
          command.commands.map((sub) => sub.name()),
        )}`,
        { code: 'commander.unknownCommand' },
      );
    return runCli(async () => (await import('./commands/worktrees.js')).worktreesListCommand({ ...options, workspace: workspace() }));
  });

/** A subcommand's options; `--json` after `worktrees` is read by `worktrees` itself, so it is taken from there too. */
const worktreeOptions = (options: Record<string, unknown>): Record<string, unknown> => ({ ...worktrees.opts(), ...options });

worktrees
  .command('list')
  .description('every worktree that lives: running, awaiting review, or left by a process that ended mid-turn')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion worktrees list', 'legion worktrees list --json']))
  .action((options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/worktrees.js')).worktreesListCommand({ ...worktreeOptions(options), workspace: workspace() }),
    ),
  );

worktrees
  .command('diff')
  .description("a worktree's whole change, as a unified diff")
  .argument('<id>', 'worktree id (see "legion worktrees")')
  .option('--json', 'one JSON object: the files and the diff')
  .addHelpText('after', examples(['legion worktrees diff developer-3fa9c2', 'legion worktrees diff developer-3fa9c2 | less']))
  .action((id: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/worktrees.js')).worktreesDiffCommand(id, { ...worktreeOptions(options), workspace: workspace() }),
    ),
  );

worktrees
  .command('apply')
  .description(
    "merge a worktree's change into the main tree and remove the worktree; with any conflict nothing is written and each file is named (exit 1)",
  )
  .argument('<id>', 'worktree id (see "legion worktrees")')
  .option('--json', 'one JSON object: the files applied, or the conflicts')
  .addHelpText('after', examples(['legion worktrees apply developer-3fa9c2', 'legion worktrees apply developer-3fa9c2 --json']))
  .action((id: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/worktrees.js')).worktreesApplyCommand(id, { ...worktreeOptions(options), workspace: workspace() }),
    ),
  );

worktrees
  .command('discard')
  .description("remove a worktree and its change without applying it (a crashed process's leftovers too)")
  .argument('<id>', 'worktree id (see "legion worktrees")')
  .option('--json', 'one JSON object')
  .addHelpText('after', examples(['legion worktrees discard developer-3fa9c2']))
  .action((id: string, options: Record<string, unknown>) =>
    runCli(async () =>
      (await import('./commands/worktrees.js')).worktreesDiscardCommand(id, { ...worktreeOptions(options), workspace: workspace() }),
    ),
  );

program
  .command('log')
  .description("a conversation's messages, tool calls one line each (default: you and the entry agent, latest session)")
  .argument('[conversation]', 'conversation id (user__coordinator, a__b__name) or the participant you talk to')
  .option('--session <id>', 'session (default: the latest)')
  .option('-f, --follow', 'keep printing new messages as any process appends them, until Ctrl-C')
  .option('-n, --limit <count>', 'show at most this many of the newest messages (default: 200)')
  .option('--json', 'one JSON object per message, per line')
  .addHelpText(
    'after',
    examples([
      'legion log',
      'legion log developer',
      'legion log --session 20261125-214500-1a2b3c coordinator__developer',
      'legion log --follow --json',
    ]),
  )
  .action((conversation: string | undefined, options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/log.js')).logCommand(conversation, { ...options, workspace: workspace() })),
  );

program
  .command('compact')
  .description("summarize the older part of an agent's context now (the full history stays in the log); refused while a turn runs")
  .option('--session <id>', 'session (default: the latest)')
  .option('--to <agent>', 'your conversation with this agent (default: the entry agent)')
  .option('--conversation <id>', 'any conversation, by id (user__coordinator, coordinator__developer)')
  .option('--json', 'one JSON object: what was compacted, tokens before and after')
  .addHelpText(
    'after',
    examples([
      'legion compact',
      'legion compact --to developer',
      'legion compact --session 20261125-214500-1a2b3c --conversation coordinator__developer',
      'legion compact --json',
    ]),
  )
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/compact.js')).compactCommand({ ...options, workspace: workspace() })),
  );

program
  .command('serve')
  .description(
    'serve the browser app over this workspace: watch the collective work, answer questions and approvals (127.0.0.1 only unless --host)',
  )
  .option('--port <n>', 'port to listen on (default: a free one)')
  .option('--host <address>', 'address to listen on (default 127.0.0.1; anything else is reachable from other machines)')
  .option('--open', 'open the URL in the system browser')
  .option(
    '--token <token>',
    'the access token to require (default: a random one); visible to every user of the machine in the process list: prefer LEGION_SERVE_TOKEN or --token-file',
  )
  .option(
    '--token-file <path>',
    'read the access token from the first line of this file (or set LEGION_SERVE_TOKEN): neither shows in the process list',
  )
  .addHelpText(
    'after',
    examples(['legion serve', 'legion serve --port 4173 --open', 'LEGION_SERVE_TOKEN="$(cat ~/.legion-token)" legion serve']),
  )
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/serve.js')).serveCommand({ ...options, workspace: workspace() })),
  );

// Loaded only when it runs: the MCP server SDK is a chunk of its own, which no other command reads.
helpWhenAlone(program.command('mcp'))
  .description('Legion and the Model Context Protocol: serve the collective to MCP clients')
  .addHelpText('after', examples(['legion mcp serve', 'legion mcp serve --http']))
  .command('serve')
  .description(
    'serve the collective as an MCP server (stdio by default, or Streamable HTTP with --http): ask_<agent> tools for MCP clients',
  )
  .option('--http', 'serve Streamable HTTP at http://127.0.0.1:PORT/mcp with a bearer token, instead of stdio')
  .option('--port <n>', 'with --http: port to listen on (default: a free one)')
  .option('--host <address>', 'with --http: address to listen on (default 127.0.0.1; anything else is reachable from other machines)')
  .option(
    '--token <token>',
    'with --http: the bearer token to require (default: a random one, printed); visible to every user of the machine in the process list: prefer LEGION_MCP_TOKEN or --token-file',
  )
  .option(
    '--token-file <path>',
    'with --http: read the bearer token from the first line of this file (or set LEGION_MCP_TOKEN): neither shows in the process list',
  )
  .addHelpText(
    'after',
    examples(['legion mcp serve', 'legion mcp serve --http --port 7331', 'claude mcp add legion -- legion -w /path/to/project mcp serve']),
  )
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/mcp-serve.js')).mcpServeCommand({ ...options, workspace: workspace() })),
  );

// Loaded only when it runs: the A2A SDK is a chunk of its own, which no other command reads.
helpWhenAlone(program.command('a2a'))
  .description('Legion and the Agent2Agent protocol: serve the collective to agents of other frameworks')
  .addHelpText('after', examples(['legion a2a serve']))
  .command('serve')
  .description('serve each exposed agent (mcpServe.expose) as an A2A agent with its card, over JSON-RPC with a bearer token')
  .option('--port <n>', 'port to listen on (default: a free one)')
  .option('--host <address>', 'address to listen on (default 127.0.0.1; anything else is reachable from other machines)')
  .option(
    '--token <token>',
    'the bearer token to require (default: a random one, printed); visible to every user of the machine in the process list: prefer LEGION_A2A_TOKEN or --token-file',
  )
  .option(
    '--token-file <path>',
    'read the bearer token from the first line of this file (or set LEGION_A2A_TOKEN): neither shows in the process list',
  )
  .addHelpText(
    'after',
    examples(['legion a2a serve', 'legion a2a serve --port 7332', 'LEGION_A2A_TOKEN="$(cat ~/.a2a-token)" legion a2a serve']),
  )
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/a2a-serve.js')).a2aServeCommand({ ...options, workspace: workspace() })),
  );

// Loaded only when it runs: the ACP SDK is a chunk of its own, which no other command reads.
program
  .command('acp')
  .description('serve the collective to an editor as an Agent Client Protocol (ACP) agent over stdio: Zed, JetBrains IDEs, …')
  .option('--as <user>', "the user participant the editor speaks as (default: the collective's default user)")
  .addHelpText('after', examples(['legion acp', 'legion -w /path/to/project acp']))
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/acp.js')).acpCommand({ ...options, workspace: workspace() })),
  );

registerManagementCommands(program);

const store = helpWhenAlone(program.command('store'))
  .description('where sessions are kept: the PostgreSQL schema, copies between files and PostgreSQL (packages/store-postgres/README.md)')
  .addHelpText(
    'after',
    examples([
      'legion store migrate --dry-run',
      'legion store migrate',
      'LEGION_DATABASE_URL=postgres://legion@db/legion legion store migrate',
      'legion store copy --from files --to postgres',
    ]),
  );
store
  .command('migrate')
  .description("bring the PostgreSQL schema up to this Legion's version (every command also does it on first use)")
  .addHelpText(
    'after',
    examples([
      'legion store migrate --dry-run',
      'legion store migrate',
      'LEGION_DATABASE_URL=postgres://legion@db/legion legion store migrate',
    ]),
  )
  .option('--dry-run', 'print the SQL it would run and change nothing')
  .option('--json', 'one JSON object')
  .action((options: { dryRun?: boolean; json?: boolean }) =>
    runCli(async () =>
      (await import('./commands/store.js')).storeMigrateCommand({
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );

store
  .command('copy')
  .description('copy sessions between the workspace files and PostgreSQL, each checked by counts and hashes on both sides')
  .addHelpText(
    'after',
    examples([
      'legion store copy --from files --to postgres --dry-run',
      'legion store copy --from files --to postgres',
      'legion store copy --from postgres --to files --session 20261125-214500-1a2b3c',
    ]),
  )
  .requiredOption('--from <store>', 'files or postgres')
  .requiredOption('--to <store>', 'files or postgres')
  .option('--session <ids...>', 'only these sessions (default: every one)')
  .option('--dry-run', 'say what would be copied and write nothing')
  .option('--json', 'one JSON object')
  .action((options: { from: string; to: string; session?: string[]; dryRun?: boolean; json?: boolean }) =>
    runCli(async () =>
      (await import('./commands/store-copy.js')).storeCopyCommand({
        ...options,
        workspace: program.opts<{ workspace?: string }>().workspace,
      }),
    ),
  );

// `legion` alone and `legion chat`: the interactive REPL (in a pipe, what `legion run` does).
const chat = (options: { new?: boolean; session?: string; to?: string }) =>
  runCli(async () => (await import('./repl/chat-command.js')).chatCommand({ ...options, workspace: workspace() }));
program
  .command('chat')
  .description('talk with your agents interactively (the default): resumes the latest session')
  .option('--new', 'start a new session')
  .option('--session <id>', 'session to continue (default: the latest)')
  .option('--to <participant>', 'who to talk to (default: the entry agent)')
  .addHelpText('after', examples(['legion chat --to developer', 'legion --new', 'legion --session 20261125-214500-1a2b3c']))
  .action(chat);

// Nothing but options (`legion`, `legion --new`, `legion -w DIR`): the REPL. Not commander's default
// command, which would take an unknown command for the REPL's argument.
const words = process.argv.slice(2);
const onlyOptions = words.every(
  (word, index) => word.startsWith('-') || ['-w', '--workspace', '--session', '--to'].includes(words[index - 1] ?? ''),
);
const wantsInfo = words.some((word) => ['-h', '--help', '-v', '--version'].includes(word));
// `legion completion SHELL` and the `legion complete -- …` its script runs at each Tab: the
// completion library (and, for `complete`, the workspace's sessions) load only for them.
const completing =
  words[0] === 'completion' || words[0] === 'complete'
    ? import('./shell-completion.js').then((module) => module.addShellCompletion(program, words))
    : undefined;
// Not awaited at the top level: the bundle runs as CommonJS (scripts/build.mjs); a failure still ends the process with its error.
if (completing) void completing.then(() => program.parseAsync(process.argv));
else void program.parseAsync(onlyOptions && !wantsInfo ? [...process.argv.slice(0, 2), 'chat', ...words] : process.argv);
