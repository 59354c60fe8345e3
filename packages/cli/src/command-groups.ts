import type { Command } from 'commander';
import { didYouMean } from './did-you-mean.js';

/**
 * Makes a group of subcommands (`legion agents`, `legion config`, `legion store`) print its help on
 * stdout and succeed when named alone: asking what a group holds is not a mistake, yet commander
 * answers a group without an action of its own with the help on stderr and exit 1. A word after the
 * group that names no subcommand stays an error, with the suggestion commander would have made.
 */
export function helpWhenAlone(group: Command): Command {
  return group.allowExcessArguments(true).action((_options: unknown, command: Command) => {
    const [word] = command.args;
    if (word === undefined) command.help();
    const subcommands = command.commands.map((subcommand) => subcommand.name());
    command.error(`error: unknown command '${word}'${didYouMean(word, subcommands)}`, { code: 'commander.unknownCommand' });
  });
}
