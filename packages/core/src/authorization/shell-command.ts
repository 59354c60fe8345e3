import { createRequire } from 'node:module';
import picomatch from 'picomatch';

/**
 * What a command line does, as far as a policy needs to know: the simple
 * commands it runs (each as its words, quotes removed) and every construct
 * that makes its effect more than those commands — redirections,
 * substitutions, expansions, background jobs, functions, loops. A rule may
 * auto-approve a command only when `hazards` is empty and every command matches.
 */
export type CommandAnalysis =
  | {
      ok: true;
      commands: string[][];
      hazards: string[];
      /** Every word anywhere (redirection targets too), quotes removed. */ words: string[];
    }
  | { ok: false; error: string };

/** mvdan-sh's node shape, as far as we read it (the package ships no types). */
interface ShNode {
  [field: string]: unknown;
}
interface ShSyntax {
  NewParser(): { Parse(source: string, name: string): ShNode };
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  NodeType(node: ShNode): string;
}

// mvdan-sh is 1.5 MB of parser: loaded on the first command rule, never at start-up.
let parser: { syntax: ShSyntax; parse: (source: string) => ShNode } | undefined;
function load(): NonNullable<typeof parser> {
  if (!parser) {
    const { syntax } = createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax };
    const instance = syntax.NewParser();
    parser = { syntax, parse: (source) => instance.Parse(source, 'command') };
  }
  return parser;
}

/** Node types that only structure plain commands; anything else is a hazard for auto-approval. */
const PLAIN_NODES = new Set(['File', 'Stmt', 'CallExpr', 'BinaryCmd', 'Word', 'Lit', 'SglQuoted', 'DblQuoted', 'Comment']);

/** mvdan-sh's binary operators: `&&` (10), `||` (11), `|` (12); `|&` (13) also pipes stderr. */
const PIPE = 12;
const PLAIN_BINARY_OPS = new Set([10, 11, PIPE]);

const HAZARD_NAMES: Record<string, string> = {
  Redirect: 'a redirection (>, <, >>)',
  CmdSubst: 'a command substitution ($(…) or `…`)',
  ProcSubst: 'a process substitution (<(…) or >(…))',
  ParamExp: 'a variable expansion ($VAR)',
  ArithmExp: 'an arithmetic expansion ($((…)))',
  Assign: 'a variable assignment',
  FuncDecl: 'a function definition',
  Subshell: 'a subshell ( … )',
  Block: 'a block { … }',
  IfClause: 'an if statement',
  WhileClause: 'a loop',
  ForClause: 'a loop',
  CaseClause: 'a case statement',
  DeclClause: 'a declaration (export, declare, local)',
  CoprocClause: 'a coprocess',
  ExtGlob: 'an extended glob',
  BraceExp: 'a brace expansion',
};

/** Parses a command line; never throws. */
export function analyzeCommand(source: string): CommandAnalysis {
  const { syntax, parse } = load();
  let file: ShNode;
  try {
    file = parse(source);
  } catch (error) {
    return { ok: false, error: String((error as { Error?: () => string }).Error?.() ?? error) };
  }
  const commands: string[][] = [];
  const hazards = new Set<string>();
  const pipedInto = new Set<ShNode>();
  const words: string[] = [];
  syntax.Walk(file, (node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (!PLAIN_NODES.has(type)) hazards.add(HAZARD_NAMES[type] ?? `shell syntax (${type})`);
    if (type === 'Stmt') {
      if (node['Background']) hazards.add('a background job (&)');
      if (node['Negated']) hazards.add('a negation (!)');
      if (node['Coprocessed']) hazards.add('a coprocess');
    } else if (type === 'BinaryCmd') {
      const op = node['Op'] as number;
      if (!PLAIN_BINARY_OPS.has(op)) hazards.add('a pipe of standard error (|&)');
      if (op === PIPE && node['Y']) pipedInto.add(node['Y'] as ShNode);
    } else if (type === 'Word') {
      words.push(wordText(node, syntax, new Set()));
    } else if (type === 'CallExpr') {
      const words = ((node['Args'] as ShNode[] | undefined) ?? []).map((word) => wordText(word, syntax, hazards));
      if (words.length > 0) commands.push(words);
    }
    return true;
  });
  // A pipe into an interpreter runs whatever the left side prints.
  for (const statement of pipedInto) {
    syntax.Walk(statement, (node) => {
      if (node && syntax.NodeType(node) === 'CallExpr') {
        const first = ((node['Args'] as ShNode[] | undefined) ?? [])[0];
        const name = first ? wordText(first, syntax, new Set()) : '';
        if (INTERPRETERS.has(basename(name))) hazards.add(`a pipe into ${name}`);
        return false;
      }
      return true;
    });
  }
  for (const words of commands) {
    const name = basename(words[0] ?? '');
    if (RUNS_OTHER_COMMANDS.has(name)) hazards.add(`${name}, which runs other commands`);
    for (const word of words.slice(1)) {
      const option = dangerousOption(name, word);
      if (option) hazards.add(`the option ${option}`);
    }
  }
  return { ok: true, commands, hazards: [...hazards], words };
}

/** The word with quotes and escapes removed; expansions inside it are hazards (recorded by the walk). */
function wordText(word: ShNode, syntax: ShSyntax, hazards: Set<string>): string {
  let text = '';
  for (const part of (word['Parts'] as ShNode[] | undefined) ?? []) {
    const type = syntax.NodeType(part);
    if (type === 'Lit') text += (part['Value'] as string).replace(/\\(.)/gs, '$1');
    else if (type === 'SglQuoted') text += part['Value'] as string;
    else if (type === 'DblQuoted') {
      for (const inner of (part['Parts'] as ShNode[] | undefined) ?? []) {
        if (syntax.NodeType(inner) === 'Lit') text += inner['Value'] as string;
        else hazards.add(HAZARD_NAMES[syntax.NodeType(inner)] ?? 'an expansion');
      }
    } else hazards.add(HAZARD_NAMES[type] ?? 'an expansion');
  }
  return text;
}

function basename(command: string): string {
  return command.slice(command.lastIndexOf('/') + 1);
}

/** Programs that run a command or script given to them: never auto-approved by a pattern on their own name. */
const RUNS_OTHER_COMMANDS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'eval',
  'exec',
  'source',
  '.',
  'xargs',
  'env',
  'sudo',
  'doas',
  'nohup',
  'timeout',
  'nice',
  'command',
  'builtin',
  'time',
  'watch',
  'parallel',
]);
const INTERPRETERS = new Set([
  ...RUNS_OTHER_COMMANDS,
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
  'lua',
  'awk',
  'tclsh',
  'osascript',
  'powershell',
  'pwsh',
]);

/**
 * Options that write files, run programs or change configuration, for any
 * program (e.g. `git log --output=…`, `find -exec`, `sort -o`) — and git's own
 * (`git -c core.pager=…` runs a command). Matched on the option's name, with or
 * without an attached value.
 */
const DANGEROUS_LONG = [
  '--output',
  '--out',
  '--output-file',
  '--output-directory',
  '--log-file',
  '--exec',
  '--exec-path',
  '--upload-pack',
  '--receive-pack',
  '--config',
  '--config-env',
  '--ext-diff',
  '--textconv',
  '--open-files-in-pager',
  '--pager',
  '--post-checkout',
  '--template',
  '--git-dir',
  '--work-tree',
  '--to',
  '--target-directory',
  '--in-place',
  '--delete',
  '--remove',
];
const DANGEROUS_FIND = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

export function dangerousOption(command: string, word: string): string | undefined {
  if (word === '--') return undefined;
  const name = word.split('=')[0]!;
  if (word.startsWith('--') && DANGEROUS_LONG.some((option) => name === option)) return name;
  if (command === 'find' && DANGEROUS_FIND.has(word)) return word;
  if (/^-[A-Za-z]*o/.test(word) && !word.startsWith('--')) return '-o';
  if (command === 'git' && /^-c/.test(word)) return '-c';
  if (command === 'sed' && /^-[A-Za-z]*i/.test(word)) return '-i';
  return undefined;
}

/**
 * Whether any word of the command refers to Legion's own state folder: by
 * name, or by a glob the shell would expand to it (`.l*`, `.[l]egion`, `.*`).
 */
export function refersToLegionState(analysis: CommandAnalysis, source: string): boolean {
  if (!analysis.ok) return /\.legion\b/i.test(source) || globReachesLegion(source.split(/\s+/));
  return analysis.words.some((word) => /\.legion\b/i.test(word)) || globReachesLegion(analysis.words);
}

const GLOB_CHARACTERS = /[*?[]/;

function globReachesLegion(words: readonly string[]): boolean {
  // As the shell expands: `*` and `?` skip dot files unless the command turns on `dotglob` (or sets GLOBIGNORE, which does too).
  const dot = words.some((word) => /dotglob|GLOBIGNORE/.test(word));
  return words.some((word) =>
    word.split(/[/=]/).some((part) => GLOB_CHARACTERS.test(part) && picomatch.isMatch('.legion', part, { dot, nocase: true })),
  );
}
