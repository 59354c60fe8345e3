#!/usr/bin/env node
// Entry point. Only commander loads up front; each command imports core and its
// own modules when it runs, so `legion --help` and `--version` stay fast.
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { runCli } from './run-cli.js';

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
  .action((words: string[], options: Record<string, unknown>) =>
    runCli(async () => (await import('./commands/run.js')).runCommand(words, { ...options, workspace: program.opts<{ workspace?: string }>().workspace })),
  );

program
  .command('sessions')
  .description('list sessions, most recently active first')
  .action(() => runCli(async () => (await import('./commands/sessions.js')).sessionsCommand(program.opts<{ workspace?: string }>().workspace)));

await program.parseAsync();
