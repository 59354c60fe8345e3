/**
 * Programs that run one of their arguments as code, and the option that says
 * which: `sh -c "<code>"`, `node -e "<code>"`. A tool argument written into
 * that code would be read by the interpreter (its quotes, `;`, `$(…)`), which
 * is the shell injection argv templates exist to prevent.
 */
const INLINE_CODE: ReadonlyArray<{ program: RegExp; option: RegExp; example: string }> = [
  {
    program: /^(sh|bash|dash|zsh|ksh|mksh|ash|fish)$/,
    option: /^-[A-Za-z]*c[A-Za-z]*$/,
    example: '["sh", "-c", "echo \\"$1\\"", "sh", "${NAME}"]',
  },
  {
    program: /^(node|nodejs|bun)$/,
    option: /^(-e|--eval|-p|--print)$/,
    example: '["node", "-e", "console.log(process.argv[1])", "${NAME}"]',
  },
  { program: /^python[0-9.]*$/, option: /^-[A-Za-z]*c$/, example: '["python3", "-c", "import sys; print(sys.argv[1])", "${NAME}"]' },
  { program: /^(perl|ruby)$/, option: /^-[A-Za-z]*[eE]$/, example: '["perl", "-e", "print $ARGV[0]", "${NAME}"]' },
  { program: /^php$/, option: /^-r$/, example: '["php", "-r", "echo $argv[1];", "${NAME}"]' },
  {
    program: /^(pwsh|powershell)(\.exe)?$/i,
    option: /^-(c|command)$/i,
    example: '["pwsh", "-c", "Write-Output $env:NAME"] with "env": { "NAME": "${NAME}" }',
  },
  { program: /^cmd(\.exe)?$/i, option: /^\/[ck]$/i, example: '"env": { "NAME": "${NAME}" } and %NAME% in the command' },
];

/** Where a command's inline code is (its index in the argv template) and how to pass values instead, if it has any. */
export function inlineCodeOf(command: readonly string[]): { index: number; program: string; example: string } | undefined {
  const program = (command[0] ?? '').split(/[/\\]/).at(-1) ?? '';
  const kind = INLINE_CODE.find((entry) => entry.program.test(program));
  if (!kind) return undefined;
  const option = command.findIndex((part, index) => index > 0 && kind.option.test(part));
  if (option === -1 || option + 1 >= command.length) return undefined;
  return { index: option + 1, program, example: kind.example };
}
