/**
 * The "Examples:" block every command's --help ends with (`command.addHelpText('after', examples([...]))`);
 * help-cli.test.ts checks that every command and subcommand has one.
 */
export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
