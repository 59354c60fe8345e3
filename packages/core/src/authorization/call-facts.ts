import { realpathSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import type { Tool } from '../tools/index.js';
import { isLegionInternal, resolveInWorkspace } from '../store/index.js';
import { analyzeCommand, refersToLegionState, type CommandAnalysis } from './shell-command.js';
import { commandText, exactCommandGlob, exactPathGlob, type RulePatternOutcome } from './approval-rule-pattern.js';

const DEFAULT_PATH_ARGUMENTS = ['path', 'paths', 'file', 'cwd', 'directory'];

/** What the engine reads of a tool: its name, effect and the arguments that hold paths or commands. */
export type PolicySubject = Pick<
  Tool,
  'name' | 'effect' | 'pathArguments' | 'policyAliases' | 'commandArguments' | 'readsPaths' | 'sandbox'
>;

/** What a rule can look at in one call, computed once and only when asked. */
export class CallFacts {
  private readonly args: Record<string, unknown>;
  private pathForms: Array<Array<string | undefined>> | undefined;
  private readonly analyses = new Map<string, CommandAnalysis>();
  private inSandbox: boolean | undefined;

  constructor(
    readonly tool: PolicySubject,
    input: unknown,
    private readonly workspaceRoot: string | undefined,
  ) {
    this.args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  }

  argument(name: string): string | undefined {
    const value = this.args[name];
    return typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value);
  }

  /** Whether the call will run in the OS sandbox (asked of the tool once per call). */
  sandboxed(): boolean {
    this.inSandbox ??= this.tool.sandbox?.().kind === 'sandboxed';
    return this.inSandbox;
  }

  isCommand(name: string): boolean {
    return this.tool.commandArguments?.includes(name) ?? false;
  }

  /** Every path argument, each as all the forms it takes (`undefined`: it leaves the workspace). */
  paths(): Array<Array<string | undefined>> {
    this.pathForms ??= this.pathValues().map((path) => workspacePathForms(this.workspaceRoot, path));
    return this.pathForms;
  }

  /** Every path argument, as given. */
  pathValues(): string[] {
    return (this.tool.pathArguments ?? DEFAULT_PATH_ARGUMENTS).flatMap((name) => {
      const value = this.args[name];
      return typeof value === 'string'
        ? [value]
        : Array.isArray(value)
          ? value.filter((item): item is string => typeof item === 'string')
          : [];
    });
  }

  /** A command line parsed once per call, however many rules look at it. */
  analysis(source: string): CommandAnalysis {
    let analysis = this.analyses.get(source);
    if (!analysis) this.analyses.set(source, (analysis = analyzeCommand(source)));
    return analysis;
  }

  /** Every command line the call runs. */
  commandSources(): string[] {
    return (this.tool.commandArguments ?? []).flatMap((name) => this.argument(name) ?? []);
  }

  /** What an approval rule's pattern is matched against: commands, paths, or nothing. */
  ruleKind(): 'command' | 'path' | 'other' {
    if (this.tool.commandArguments?.length) return 'command';
    return this.paths().length > 0 ? 'path' : 'other';
  }

  /** A pattern for exactly this call's one command. */
  exactCommandPattern(): RulePatternOutcome & { pattern?: string } {
    const commands: string[][] = [];
    for (const source of this.commandSources()) {
      const analysis = this.analysis(source);
      if (!analysis.ok)
        return { ok: false, error: `the command ${JSON.stringify(source)} does not parse (${analysis.error}), so no rule can approve it` };
      if (analysis.hazards.length > 0) {
        return {
          ok: false,
          error: `the command ${JSON.stringify(source)} holds ${analysis.hazards.join(', ')}, which no rule approves (a rule approves plain commands only); approve it once or for the session`,
        };
      }
      commands.push(...analysis.commands);
    }
    if (commands.length !== 1) {
      const texts = commands.map((words) => commandText(words));
      return {
        ok: false,
        error: `the call runs ${commands.length === 0 ? 'no command' : `${commands.length} commands (${texts.join('; ')})`}; give a pattern that every one of them matches, e.g. ${JSON.stringify(`${texts[0]?.split(' ')[0] ?? 'git'} *`)}`,
      };
    }
    return { ok: true, pattern: exactCommandGlob(commandText(commands[0]!)) };
  }

  /** A pattern for exactly this call's one path, as it reads inside the workspace. */
  exactPathPattern(): RulePatternOutcome & { pattern?: string } {
    const values = this.pathValues();
    if (values.length !== 1)
      return {
        ok: false,
        error: `the call names ${values.length} paths (${values.join(', ')}); give a pattern that every one of them matches, e.g. "src/**"`,
      };
    const forms = this.paths()[0]!;
    if (forms.includes(undefined))
      return { ok: false, error: `the path ${JSON.stringify(values[0])} leads outside the workspace, and no rule approves that` };
    // As it reads from the workspace root, `x/../a.txt` as `a.txt`.
    const root = resolve(this.workspaceRoot ?? '.');
    const normal = relative(root, resolve(root, values[0]!)) || '.';
    return { ok: true, pattern: exactPathGlob(normal.split(sep).join('/')) };
  }

  /** Whether a command line, or the folder it runs in, refers to `.legion/`. */
  touchesLegionState(): boolean {
    for (const name of this.tool.commandArguments ?? []) {
      const source = this.argument(name);
      if (source !== undefined && refersToLegionState(analyzeCommand(source), source)) return true;
    }
    if (!this.tool.commandArguments?.length) return false;
    return this.paths().some((forms) => forms.some((form) => form !== undefined && isLegionInternal(form)));
  }
}

/**
 * The forms of one path a rule is matched against: as written (`./` removed),
 * normalized (`x/../secret/k` → `secret/k`), and where it really leads inside
 * the workspace with every symlink followed. A form outside the workspace is
 * `undefined`, which no rule matches (so it never satisfies an `auto` rule).
 */
export function workspacePathForms(workspaceRoot: string | undefined, path: string): Array<string | undefined> {
  const written = path.replace(/^(\.\/+)+/, '');
  const forms = new Set<string | undefined>([written]);
  if (!workspaceRoot) {
    const normal = posix.normalize(path.replaceAll(sep, '/'));
    forms.add(normal.startsWith('../') || normal === '..' || isAbsolute(normal) ? undefined : normal.replace(/^\.\/+/, ''));
    return [...forms];
  }
  const lexical = relative(resolve(workspaceRoot), resolve(workspaceRoot, path));
  forms.add(outside(lexical) ? undefined : lexical || '.');
  let resolved: ReturnType<typeof resolveInWorkspace>;
  try {
    resolved = resolveInWorkspace(workspaceRoot, path);
  } catch {
    // No workspace folder on disk (an engine built for a config alone): the written and normalized forms decide.
    return [...forms].filter((form) => form === undefined || !isAbsolute(form));
  }
  if (!resolved.ok) forms.add(undefined);
  else {
    forms.add(resolved.relative);
    forms.add(relative(realpathOrSelf(workspaceRoot), resolved.real) || '.');
  }
  if (isAbsolute(written)) forms.delete(written);
  return [...forms];
}

function outside(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
