import picomatch from 'picomatch';
import type { Participant, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from '../team/index.js';
import type { ToolEffect } from '../tools/index.js';
import { LEGION_DIR } from '../store/index.js';
import { analyzeCommand } from './shell-command.js';
import { commandGlobMatches, commandText, type RulePatternOutcome } from './approval-rule-pattern.js';
import { CallFacts, type PolicySubject } from './call-facts.js';

/** Built-in defaults by effect: reads and messages run; anything that changes the world asks. */
export const DEFAULT_MODES: Record<ToolEffect, PolicyMode> = {
  read: 'auto',
  communicate: 'auto',
  write: 'requires_approval',
  shell: 'requires_approval',
  network: 'requires_approval',
  collective: 'requires_approval',
};

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
 * What the engine reads of an "approve always" rule. The rules themselves (their files, schema and
 * making) belong to the human-in-the-loop area above this one (`hitl/`), whose `ApprovalRule` has
 * these fields: naming them here keeps policy below the area that asks people.
 */
export interface StandingApproval {
  id: string;
  /** The requester whose calls it approves. */
  participant: string;
  tool: string;
  pattern?: string | undefined;
  createdBy: string;
}

export interface AuthEngineOptions {
  /** The "approve always" rules in force for a requester, read when a call would otherwise ask. */
  approvalRules?: ((participantId: string) => readonly StandingApproval[]) | undefined;
}

/**
 * Decides `auto | requires_approval | deny` for one tool call. Layers, most
 * specific first: the participant's policies, then the workspace's, then the
 * built-in default for the tool's effect. Within a layer an exact name beats a
 * glob, and a longer glob beats a shorter one. A deny from ANY matching policy
 * in any layer wins: no wildcard, grant, approval rule or override can widen it.
 * A session grant or an "approve always" rule turns only `requires_approval`
 * into `auto`, and never for a command that refers to Legion's own state.
 */
export class AuthEngine {
  constructor(
    private workspacePolicies: Policies = {},
    private readonly workspaceRoot?: string,
    private readonly options: AuthEngineOptions = {},
  ) {}

  /** The workspace's policies read again (an edited config): calls judged from now on are judged by them. */
  usePolicies(policies: Policies): void {
    this.workspacePolicies = policies;
  }

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
    if (chosen)
      decision =
        grants?.has(tool.name) && chosen.mode === 'requires_approval'
          ? { mode: 'auto', reason: 'always allowed in this session', source: 'grant' }
          : chosen;
    else {
      const mode = DEFAULT_MODES[tool.effect ?? 'write'];
      decision =
        mode === 'requires_approval' && grants?.has(tool.name)
          ? { mode: 'auto', reason: 'always allowed in this session', source: 'grant' }
          : {
              mode,
              reason: `${tool.effect ?? 'write'} tools ${mode === 'auto' ? 'run without asking' : 'need approval'} by default`,
              source: 'default',
            };
    }
    if (decision.mode === 'requires_approval') decision = this.approvedByRule(participant.id, call) ?? decision;
    if (tool.readsPaths && tool.name !== FILE_READ_SUBJECT.name) {
      const reading = this.readingLimit(participant, call, decision);
      if (reading) return reading;
    }
    // Legion's own state (roster, approval authority, config) changes only through the collective tools or with a
    // person's say-so, whatever a policy allows: an agent approver could otherwise grant its chain any authority.
    if (decision.mode !== 'deny' && call.touchesLegionState()) {
      if (decision.mode === 'auto')
        return {
          mode: 'requires_approval',
          reason: `the command refers to ${LEGION_DIR}/, Legion's own state (roster, config, sessions)`,
          source: 'built-in',
          personOnly: true,
        };
      return { ...decision, personOnly: true };
    }
    return decision;
  }

  /**
   * What a call of this tool gets when no scoped rule applies to its arguments
   * (its standing mode), and whether scoped rules (paths, argument patterns)
   * may decide otherwise for some calls: what `legion tools list` shows.
   */
  summarize(participant: Participant, tool: PolicySubject): PolicyDecision & { scoped: boolean } {
    const scoped = ['policies' in participant ? participant.policies : undefined, this.workspacePolicies].some((policies) =>
      matchingPolicies(policies, tool).some(([, policy]) => typeof policy !== 'string' && policy.rules.length > 0),
    );
    // Object.assign, not `{ ...decision, scoped }`: asked per tool on every step, and V8 (Node 20) keeps objects built
    // by a spread plus more properties through young-generation GCs (bench/memory-runs.mjs).
    return Object.assign({}, this.evaluate({ participant, tool, input: {} }), { scoped });
  }

  /**
   * For a tool that reads its paths (`readsPaths`): `file_read`'s decision on
   * any of them when stricter than this call's. A find-and-replace edit tells
   * whether its text is in the file, so an edit is never allowed more than a
   * read: denied where reading is, asked for where reading asks.
   */
  private readingLimit(participant: Participant, call: CallFacts, decision: PolicyDecision): PolicyDecision | undefined {
    let limit: PolicyDecision | undefined;
    for (const path of call.pathValues()) {
      const reading = this.evaluate({ participant, tool: FILE_READ_SUBJECT, input: { path } });
      if (reading.mode === 'deny')
        return {
          mode: 'deny',
          reason: `${call.tool.name} reads the file and shows what it holds, and reading "${path}" is denied (${reading.reason})`,
          source: reading.source,
        };
      if (reading.mode === 'requires_approval' && decision.mode === 'auto')
        limit ??= {
          mode: 'requires_approval',
          reason: `${call.tool.name} reads the file, and reading "${path}" needs approval (${reading.reason})`,
          source: reading.source,
        };
    }
    return limit;
  }

  /** Whether `file_read` of this path would run without asking: searches show only what reading may. */
  mayRead(participant: Participant, path: string): boolean {
    return this.evaluate({ participant, tool: FILE_READ_SUBJECT, input: { path } }).mode === 'auto';
  }

  /**
   * The pattern an "approve always" answer for this call makes its rule with:
   * the one given, if it matches this very call, or else one that matches
   * exactly this call (its command, its path). A call a rule could never
   * approve (a command line with a redirection, several commands or paths
   * without a pattern) gets the reason and the fix instead.
   */
  rulePattern(tool: PolicySubject, input: unknown, pattern?: string): RulePatternOutcome {
    const call = new CallFacts(tool, input, this.workspaceRoot);
    const kind = call.ruleKind();
    if (kind === 'other') {
      return pattern === undefined
        ? { ok: true }
        : {
            ok: false,
            error: `${tool.name} takes no command or path, so its rule has no pattern: it covers every call. Leave the pattern out`,
          };
    }
    let chosen = pattern;
    if (chosen === undefined) {
      const exact = kind === 'command' ? call.exactCommandPattern() : call.exactPathPattern();
      if (!exact.ok) return exact;
      chosen = exact.pattern;
    }
    if (!ruleApproves(chosen, call)) {
      const what =
        kind === 'command'
          ? `the command ${JSON.stringify(call.commandSources().join('; '))}`
          : `the path ${call
              .pathValues()
              .map((path) => JSON.stringify(path))
              .join(', ')}`;
      const hint =
        kind === 'command'
          ? 'a command pattern must match each command of the line, whole (`git status*`), and the line may hold no redirection, substitution or variable'
          : 'a path pattern must match every path of the call, as written and where it really leads, inside the workspace (`src/**`)';
      return { ok: false, error: `the pattern ${JSON.stringify(chosen)} does not match ${what}; ${hint}` };
    }
    return { ok: true, pattern: chosen };
  }

  private approvedByRule(participantId: string, call: CallFacts): PolicyDecision | undefined {
    const rules = this.options.approvalRules?.(participantId);
    for (const rule of rules ?? []) {
      if (rule.participant !== participantId || rule.tool !== call.tool.name) continue;
      if (ruleApproves(rule.pattern, call)) {
        return {
          mode: 'auto',
          reason: `approved always by ${rule.createdBy} (rule ${rule.id}${rule.pattern ? `: ${rule.pattern}` : ''})`,
          source: `approval rule ${rule.id}`,
        };
      }
    }
    return undefined;
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
  if (rule.whenSandboxed && !call.sandboxed()) return false;
  const widening = rule.mode === 'auto';
  if (rule.paths) {
    const paths = call.paths();
    if (paths.length === 0) return false;
    const matches = pathMatcher(rule.paths);
    const matchesForm = (form: string | undefined) => form !== undefined && matches(form);
    const held = widening ? paths.every((forms) => forms.every(matchesForm)) : paths.some((forms) => forms.some(matchesForm));
    if (!held) return false;
  }
  for (const [name, pattern] of Object.entries(rule.args ?? {})) {
    const regex = argumentRegex(pattern);
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
 * Whether an "approve always" rule's pattern covers a call. It widens, so it
 * must hold the strict way: for a command line, every simple command matches
 * the glob whole and the line has no redirection, substitution, expansion or
 * other hazard (and any folder it runs in is inside the workspace); for
 * paths, every form of every path matches; a tool with neither matches only
 * a rule without a pattern.
 */
function ruleApproves(pattern: string | undefined, call: CallFacts): boolean {
  const kind = call.ruleKind();
  if (kind === 'command') {
    const sources = call.commandSources();
    if (sources.length === 0) return false;
    if (!call.paths().every((forms) => forms.every((form) => form !== undefined))) return false;
    return sources.every((source) => {
      const analysis = call.analysis(source);
      if (!analysis.ok || analysis.hazards.length > 0 || analysis.commands.length === 0) return false;
      return analysis.commands.every((words) => commandGlobMatches(pattern ?? '*', commandText(words)));
    });
  }
  if (kind === 'path') return ruleMatches({ mode: 'auto', paths: [pattern ?? '**'] }, call);
  return pattern === undefined;
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
    } else {
      const matches = toolGlob(pattern);
      if (matches(tool.name) || aliases.some(matches)) ranked.push([2, pattern, policy]);
    }
  }
  return ranked.sort(([a, x], [b, y]) => a - b || (a === 2 ? y.length - x.length : 0)).map(([, pattern, policy]) => [pattern, policy]);
}

/*
 * Every tool call is checked against the policies: their globs and patterns are compiled once, not on
 * each call (picomatch.isMatch compiles its pattern every time). Policies come from config files, so
 * there are few; the bound only keeps a process that reloads many configs from holding them all.
 */
const COMPILED_BOUND = 512;
const toolGlobs = new Map<string, (name: string) => boolean>();
const pathMatchers = new Map<string, (path: string) => boolean>();
const argumentRegexes = new Map<string, RegExp>();

function compiled<T>(cache: Map<string, T>, key: string, compile: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= COMPILED_BOUND) cache.clear();
    value = compile();
    cache.set(key, value);
  }
  return value;
}

function toolGlob(pattern: string): (name: string) => boolean {
  return compiled(toolGlobs, pattern, () => picomatch(pattern, { dot: true }));
}

function pathMatcher(paths: readonly string[]): (path: string) => boolean {
  return compiled(pathMatchers, JSON.stringify(paths), () => picomatch([...paths], { dot: true }));
}

/** Argument patterns have no flags: `test` keeps no state between calls, so one RegExp serves them all. */
function argumentRegex(pattern: string): RegExp {
  return compiled(argumentRegexes, pattern, () => new RegExp(pattern));
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
