import { realpathSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { Participant } from '../collective/participant.js';
import type { Tool, ToolEffect } from '../tools/tool.js';
import { LEGION_DIR } from '../storage/workspace-paths.js';
import { isLegionInternal, resolveInWorkspace } from '../storage/workspace-path.js';
import { analyzeCommand, refersToLegionState } from './shell-command.js';
import type { Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from '../collective/policy.js';

const DEFAULT_PATH_ARGUMENTS = ['path', 'paths', 'file', 'cwd', 'directory'];

/** Built-in defaults by effect: reads and messages run; anything that changes the world asks. */
export const DEFAULT_MODES: Record<ToolEffect, PolicyMode> = {
  read: 'auto',
  communicate: 'auto',
  write: 'requires_approval',
  shell: 'requires_approval',
  network: 'requires_approval',
  collective: 'requires_approval',
};

/** What the engine reads of a tool: its name, effect and the arguments that hold paths or commands. */
export type PolicySubject = Pick<Tool, 'name' | 'effect' | 'pathArguments' | 'policyAliases' | 'commandArguments'>;

/** `file_read` as policies see it, for asking whether a search may show a file. */
export const FILE_READ_SUBJECT: PolicySubject = { name: 'file_read', effect: 'read', pathArguments: ['path'] };

export interface AuthorizeInput {
  participant: Participant;
  tool: PolicySubject;
  input: unknown;
  /** Tools this participant was granted "always allow" for in this session. */
  grants?: ReadonlySet<string>;
}

/**
 * Decides `auto | requires_approval | deny` for one tool call. Layers, most
 * specific first: the participant's policies, then the workspace's, then the
 * built-in default for the tool's effect. Within a layer an exact name beats a
 * glob, and a longer glob beats a shorter one. A deny from ANY matching policy
 * in any layer wins: no wildcard, grant or override can widen it.
 */
export class AuthEngine {
  constructor(
    private readonly workspacePolicies: Policies = {},
    private readonly workspaceRoot?: string,
  ) {}

  evaluate({ participant, tool, input, grants }: AuthorizeInput): PolicyDecision {
    const layers: Array<[string, Policies | undefined]> = [
      [`participant ${participant.id}`, 'policies' in participant ? participant.policies : undefined],
      ['workspace config', this.workspacePolicies],
    ];
    const call = new CallFacts(tool, input, this.workspaceRoot);
    let chosen: PolicyDecision | undefined;
    for (const [layer, policies] of layers) {
      for (const [pattern, policy] of matchingPolicies(policies, tool)) {
        const decision = this.apply(policy, call, `${layer} "${pattern}"`);
        if (!decision) continue;
        if (decision.mode === 'deny') return decision;
        chosen ??= decision;
      }
    }
    let decision: PolicyDecision;
    if (chosen) decision = grants?.has(tool.name) && chosen.mode === 'requires_approval' ? { mode: 'auto', reason: 'always allowed in this session', source: 'grant' } : chosen;
    else {
      const mode = DEFAULT_MODES[tool.effect ?? 'write'];
      decision =
        mode === 'requires_approval' && grants?.has(tool.name)
          ? { mode: 'auto', reason: 'always allowed in this session', source: 'grant' }
          : { mode, reason: `${tool.effect ?? 'write'} tools ${mode === 'auto' ? 'run without asking' : 'need approval'} by default`, source: 'default' };
    }
    // Legion's own state changes only through the collective tools or with the user's say-so, whatever a policy allows.
    if (decision.mode === 'auto' && call.touchesLegionState()) {
      return { mode: 'requires_approval', reason: `the command refers to ${LEGION_DIR}/, Legion's own state (roster, config, sessions)`, source: 'built-in' };
    }
    return decision;
  }

  /**
   * What a call of this tool gets when no scoped rule applies to its arguments
   * (its standing mode), and whether scoped rules (paths, argument patterns)
   * may decide otherwise for some calls: what `legion tools list` shows.
   */
  summarize(participant: Participant, tool: PolicySubject): PolicyDecision & { scoped: boolean } {
    const scoped = [('policies' in participant ? participant.policies : undefined), this.workspacePolicies].some((policies) =>
      matchingPolicies(policies, tool).some(([, policy]) => typeof policy !== 'string' && policy.rules.length > 0),
    );
    return { ...this.evaluate({ participant, tool, input: {} }), scoped };
  }

  /** Whether `file_read` of this path would run without asking: searches show only what reading may. */
  mayRead(participant: Participant, path: string): boolean {
    return this.evaluate({ participant, tool: FILE_READ_SUBJECT, input: { path } }).mode === 'auto';
  }

  /** A policy's decision for this input, or undefined when it has rules only and none match. */
  private apply(policy: ToolPolicy, call: CallFacts, source: string): PolicyDecision | undefined {
    if (typeof policy === 'string') return { mode: policy, reason: `set by ${source}`, source };
    for (const rule of policy.rules) {
      if (ruleMatches(rule, call)) return { mode: rule.mode, reason: rule.reason ?? `a rule of ${source}`, source };
    }
    return policy.mode ? { mode: policy.mode, reason: policy.reason ?? `set by ${source}`, source } : undefined;
  }
}

/**
 * A rule applies when every condition it names holds. The two directions are
 * not symmetric, on purpose: a rule that widens (`auto`) must hold for every
 * form of every path and every command in a command line, while a rule that
 * narrows (`deny`, `requires_approval`) applies as soon as any of them matches.
 * A trick that changes how an argument looks can then only make Legion ask more.
 */
function ruleMatches(rule: PolicyRule, call: CallFacts): boolean {
  const widening = rule.mode === 'auto';
  if (rule.paths) {
    const paths = call.paths();
    if (paths.length === 0) return false;
    const matches = picomatch(rule.paths, { dot: true });
    const matchesForm = (form: string | undefined) => form !== undefined && matches(form);
    const held = widening ? paths.every((forms) => forms.every(matchesForm)) : paths.some((forms) => forms.some(matchesForm));
    if (!held) return false;
  }
  for (const [name, pattern] of Object.entries(rule.args ?? {})) {
    const regex = new RegExp(pattern);
    if (call.isCommand(name)) {
      if (!commandMatches(regex, call.argument(name), widening)) return false;
      continue;
    }
    const text = call.argument(name);
    if (text === undefined || !regex.test(text)) return false;
  }
  return true;
}

/**
 * A pattern on a command line is matched per simple command, on the parsed
 * words: `auto` needs every command to match and nothing else in the line
 * (no redirection, substitution, expansion, dangerous option, pipe into a
 * shell); `deny`/`requires_approval` need one command — or the raw text — to match.
 */
function commandMatches(regex: RegExp, source: string | undefined, widening: boolean): boolean {
  if (source === undefined) return false;
  const analysis = analyzeCommand(source);
  if (widening) {
    if (!analysis.ok || analysis.hazards.length > 0 || analysis.commands.length === 0) return false;
    return analysis.commands.every((words) => regex.test(words.join(' ')));
  }
  return regex.test(source) || (analysis.ok && analysis.commands.some((words) => regex.test(words.join(' '))));
}

/** What a rule can look at in one call, computed once and only when asked. */
class CallFacts {
  private readonly args: Record<string, unknown>;
  private pathForms: Array<Array<string | undefined>> | undefined;

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

  isCommand(name: string): boolean {
    return this.tool.commandArguments?.includes(name) ?? false;
  }

  /** Every path argument, each as all the forms it takes (`undefined`: it leaves the workspace). */
  paths(): Array<Array<string | undefined>> {
    this.pathForms ??= (this.tool.pathArguments ?? DEFAULT_PATH_ARGUMENTS)
      .flatMap((name) => {
        const value = this.args[name];
        return typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
      })
      .map((path) => workspacePathForms(this.workspaceRoot, path));
    return this.pathForms;
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

/**
 * Matching entries of one layer, most specific first: the tool's exact name,
 * then the names it answers to (`file_write` for `file_edit`), then globs by
 * length, then `effect:<effect>` groups.
 */
function matchingPolicies(policies: Policies | undefined, tool: PolicySubject): Array<[string, ToolPolicy]> {
  if (!policies) return [];
  const aliases = policyNames(tool);
  const ranked: Array<[number, string, ToolPolicy]> = [];
  for (const [pattern, policy] of Object.entries(policies)) {
    if (pattern === tool.name) ranked.push([0, pattern, policy]);
    else if (aliases.includes(pattern)) ranked.push([1, pattern, policy]);
    else if (pattern.startsWith(EFFECT_PREFIX)) {
      if (pattern.slice(EFFECT_PREFIX.length) === (tool.effect ?? 'write')) ranked.push([3, pattern, policy]);
    } else if ([tool.name, ...aliases].some((name) => picomatch.isMatch(name, pattern, { dot: true }))) ranked.push([2, pattern, policy]);
  }
  return ranked.sort(([a, x], [b, y]) => a - b || (a === 2 ? y.length - x.length : 0)).map(([, pattern, policy]) => [pattern, policy]);
}

/** A policy key that names every tool with one effect: `effect:shell`, `effect:write`. */
export const EFFECT_PREFIX = 'effect:';

/** The other names whose policies govern a tool. */
export function policyNames(tool: PolicySubject): string[] {
  const names = [...(tool.policyAliases ?? [])];
  // Every tool that runs a command line a model wrote answers to shell_run's policy, today's tools and any added later.
  if (tool.commandArguments?.length && tool.name !== 'shell_run') names.push('shell_run');
  return names;
}
