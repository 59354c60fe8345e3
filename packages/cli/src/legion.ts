#!/usr/bin/env node
// Entry point. Only commander loads up front; each command imports core and its
// own modules when it runs, so `legion --help` and `--version` stay fast.
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { registerManagementCommands } from './management-commands.js';
import { runCli } from './run-cli.js';

// Output piped into `head` and the like: a closed pipe means the reader has seen enough.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('legion')
  .description('A persistent multi-agent collective: agents and you, talking through directional conversations that live on disk.')
  .version(version, '-v, --version')
  .option('-w, --workspace <dir>', 'workspace directory (default: the nearest one holding .legion/)')
  .showHelpAfterError('(run "legion --help" for usage)');

program
  .command('init')
  .description('create .legion/ here (or in DIR) with a starting team: you, a coordinator and two specialists')
  .argument('[dir]', 'directory to initialise', '.')
  .action((dir: string) => runCli(async () => (await import('./commands/init.js')).initCommand(dir)));

program
  .command('demo')
  .description('watch a scripted collective work (no API key): you → coordinator → developer, with tool calls')
  .option('--pace <ms>', 'pause between model steps, to follow along (default: 350 on a terminal, else 0)')
  .option('--dir <dir>', 'where to create the demo workspace (default: a new temp directory)')
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
  .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
  .option('--verbose', 'show the conversation on stderr as it happens')
  .addOption(new Option('--approve <mode>', 'answer tool approvals: ask on the terminal, approve all, or reject all (default: config approval.headless, else prompt)').choices(['prompt', 'auto', 'deny']))
  .action((words: string[], options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/run.js')).runCommand(words, { ...options, workspace: program.opts<{ workspace?: string }>().workspace })),
  );

program
  .command('approvals')
  .description('list tool calls waiting for approval in the latest session (or --session)')
  .option('--session <id>', 'session (default: the latest)')
  .option('--all', 'also list decisions already made')
  .option('--json', 'one JSON object')
  .action((options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/approvals.js')).approvalsCommand({ ...options, workspace: program.opts<{ workspace?: string }>().workspace })),
  );

for (const decision of ['approve', 'reject'] as const) {
  const command = program
    .command(decision)
    .description(`${decision} waiting tool calls by id, as the user, and resume the turns that waited on them`)
    .argument('<ids...>', 'approval request ids (see "legion approvals")')
    .option('--session <id>', 'session (default: the latest)')
    .option('--as <participant>', 'decide as this participant (default: the first user)')
    .option('--json', 'one JSON object');
  if (decision === 'approve') command.option('--always', 'also allow this tool for this agent for the rest of the session');
  else command.option('--reason <text>', 'why, shown to the agent so it can adapt');
  command.action((ids: string[], options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/approvals.js')).answerCommand(decision, ids, { ...options, workspace: program.opts<{ workspace?: string }>().workspace })),
  );
}

program
  .command('sessions')
  .description('list sessions, most recently active first')
  .action(() => runCli(async () => (await import('./commands/sessions.js')).sessionsCommand(program.opts<{ workspace?: string }>().workspace)));

registerManagementCommands(program);

// `legion` alone and `legion chat`: the interactive REPL (in a pipe, what `legion run` does).
const chat = (options: { new?: boolean; session?: string; to?: string }) =>
  runCli(async () => (await import('./repl/chat-command.js')).chatCommand({ ...options, workspace: program.opts<{ workspace?: string }>().workspace }));
program
  .command('chat')
  .description('talk with your agents interactively (the default): resumes the latest session')
  .option('--new', 'start a new session')
  .option('--session <id>', 'session to continue (default: the latest)')
  .option('--to <participant>', 'who to talk to (default: the entry agent)')
  .action(chat);

// Nothing but options (`legion`, `legion --new`, `legion -w DIR`): the REPL. Not commander's default
// command, which would take an unknown command for the REPL's argument.
const words = process.argv.slice(2);
const onlyOptions = words.every((word, index) => word.startsWith('-') || ['-w', '--workspace', '--session', '--to'].includes(words[index - 1] ?? ''));
const wantsInfo = words.some((word) => ['-h', '--help', '-v', '--version'].includes(word));
await program.parseAsync(onlyOptions && !wantsInfo ? [...process.argv.slice(0, 2), 'chat', ...words] : process.argv);
