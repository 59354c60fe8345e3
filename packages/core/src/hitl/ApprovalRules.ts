import { randomBytes } from 'node:crypto';
import { APPROVAL_RULE_VERSION, ApprovalRuleSchema, type ApprovalRule } from './approval-rule.js';
import type { ApprovalRuleStore } from './ApprovalRuleStore.js';
import type { Collective } from '../team/index.js';
import { canApprove, decisionReach } from '../team/index.js';
import type { ApprovalRuleRecorder } from './approval-rule-recorder.js';
import { LegionError } from '../kernel/index.js';
import type { EventBus } from '../kernel/index.js';
import { rememberOf, type ApprovalAnswer, type ApprovalRequestRecord, type ApprovalView } from '../store/index.js';
import type { ToolRegistry } from '../tools/index.js';
import type { AuthEngine, RulePatternOutcome, PolicySubject } from '../authorization/index.js';

/** What `add` takes: the rest (id, time, version) is filled in. */
export interface NewApprovalRule {
  participant: string;
  tool: string;
  pattern?: string | undefined;
  /** A user participant; the collective's first user by default. */
  createdBy?: string | undefined;
  medium?: string | undefined;
  reason?: string | undefined;
}

/**
 * The workspace's "approve always" rules, as `legion.approvalRules`: list,
 * add and remove them; answers with `remember: 'always'` make them too. They
 * live in `.legion/collective/approval-rules/`, a file each, and hold in
 * every session and process from the moment they are written.
 */
export class ApprovalRules implements ApprovalRuleRecorder {
  /** Rules already reported as approving nothing (by id and maker), so a warning is said once. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly store: ApprovalRuleStore,
    private readonly services: {
      collective: Collective;
      tools: ToolRegistry;
      events: EventBus;
      auth: AuthEngine;
      display: (path: string) => string;
    },
  ) {}

  /** Every rule, oldest first. A broken rule file throws a `ConfigError` naming the file, the field and the fix. */
  list(): ApprovalRule[] {
    return this.store.list();
  }

  /** Writes a new rule and returns it; the pattern is not checked against a call, so a pattern that matches nothing approves nothing. */
  add(input: NewApprovalRule): ApprovalRule {
    const participant = this.services.collective.get(input.participant);
    if (!participant)
      throw new LegionError(
        'participant_not_found',
        `No participant "${input.participant}" to make an approval rule for. Known participants: ${this.services.collective.ids().join(', ')}.`,
        { participantId: input.participant },
      );
    const createdBy = this.ruleMaker(input.createdBy);
    if (!canApprove(this.services.collective.require(createdBy), participant.id, input.tool)) {
      throw new LegionError(
        'approval_not_allowed',
        `${createdBy} may not approve ${participant.id}'s ${input.tool} (its approvalAuthority), so it cannot make a rule for it.`,
        { createdBy, participantId: participant.id, tool: input.tool },
      );
    }
    const rule = ApprovalRuleSchema.parse({
      version: APPROVAL_RULE_VERSION,
      id: `rule_${randomBytes(6).toString('hex')}`,
      participant: participant.id,
      tool: input.tool,
      ...(input.pattern !== undefined ? { pattern: input.pattern } : {}),
      createdAt: new Date().toISOString(),
      createdBy,
      ...(input.medium !== undefined ? { medium: input.medium } : {}),
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
    });
    this.record(rule);
    return rule;
  }

  /** Removes a rule by id (a broken rule file too); returns it when its file could be read. Throws `approval_rule_not_found` for an unknown id. */
  remove(id: string): ApprovalRule | undefined {
    const rule = this.store.remove(id);
    if (this.services.events.hasListeners('approval-rule:removed')) {
      this.services.events.emit('approval-rule:removed', {
        id,
        ...(rule
          ? { participant: rule.participant, tool: rule.tool, ...(rule.pattern !== undefined ? { pattern: rule.pattern } : {}) }
          : {}),
      });
    }
    return rule;
  }

  /**
   * The pattern an "approve always" answer to this request would make its rule
   * with (`pattern` if given and it matches this call; else one matching
   * exactly its command or path), or why no rule can approve it: what a
   * surface shows before offering "approve always", and checks a typed pattern with.
   */
  patternFor(request: Pick<ApprovalView, 'tool' | 'input'>, pattern?: string): RulePatternOutcome {
    const tool = this.subject(request.tool);
    if (!tool) return { ok: false, error: `the tool ${request.tool} is not registered now, so no rule can be made for it` };
    return this.services.auth.rulePattern(tool, request.input, pattern);
  }

  /**
   * The rules that decide this participant's calls. A broken rule file
   * approves nothing, nor does a rule whose maker is not (or no longer) a
   * user who may approve that call: a rule is an approval given ahead of time,
   * never more than its maker could give. Each is reported once.
   */
  rulesFor(participantId: string): ApprovalRule[] {
    const rules = this.store.usable((problem) => this.warn(problem.file, problem.message.slice(problem.file.length).replace(/^:\s*/, '')));
    return rules.filter((rule) => {
      if (rule.participant !== participantId) return false;
      const maker = this.services.collective.get(rule.createdBy);
      if (maker?.type === 'user' && maker.status === 'active' && canApprove(maker, rule.participant, rule.tool)) return true;
      const key = `${rule.id} ${rule.createdBy}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        const file = this.services.display(`${this.store.directory}/${rule.id}.json`);
        this.warn(
          file,
          `field "createdBy": "${rule.createdBy}" is not an active user who may approve ${rule.participant}'s ${rule.tool}, so the rule approves nothing. Fix: set "createdBy" to such a user, or remove the rule (legion approvals rules rm ${rule.id})`,
        );
      }
      return false;
    });
  }

  private warn(path: string, problem: string): void {
    this.services.events.emit('storage:warning', { path, offset: 0, problem });
  }

  async prepare(
    request: ApprovalRequestRecord,
    answer: ApprovalAnswer,
    context: { decidedBy: string; sessionId: string; medium?: string | undefined },
  ): Promise<{ ok: true; rule?: ApprovalRule } | { ok: false; error: string }> {
    if (answer.decision !== 'approve' || rememberOf(answer) !== 'always') return { ok: true };
    const maker = this.services.collective.get(context.decidedBy);
    if (maker?.type !== 'user') {
      return {
        ok: false,
        error: `only a user makes "approve always" rules, and ${context.decidedBy} is not one; approve for the session instead`,
      };
    }
    // A rule holds in every session: a stand-in (an MCP client), which decides only within its own chains, makes none.
    if (decisionReach(maker, (id) => this.services.collective.isCaller(id)) !== 'any') {
      return {
        ok: false,
        error: `${context.decidedBy} stands in for the human and decides only within its own chains, so it makes no rule for every session; approve once instead`,
      };
    }
    if (!this.subject(request.tool)) await this.services.tools.ready();
    const pattern = this.patternFor(request, answer.pattern);
    if (!pattern.ok) return pattern;
    const rule = ApprovalRuleSchema.parse({
      version: APPROVAL_RULE_VERSION,
      // From the request's id: however many deciders race, one rule file can exist for it.
      id: `rule_${request.id
        .replace(/^apr_/, '')
        .replace(/[^A-Za-z0-9-]/g, '-')
        .slice(0, 64)}`,
      participant: request.requester,
      tool: request.tool,
      ...(pattern.pattern !== undefined ? { pattern: pattern.pattern } : {}),
      createdAt: new Date().toISOString(),
      createdBy: context.decidedBy,
      ...(context.medium ? { medium: context.medium } : {}),
      ...(answer.reason ? { reason: answer.reason } : {}),
      fromRequest: { sessionId: context.sessionId, requestId: request.id },
    });
    return { ok: true, rule };
  }

  record(rule: ApprovalRule): void {
    if (!this.store.create(rule)) return;
    if (this.services.events.hasListeners('approval-rule:added')) {
      const { id, participant, tool, pattern, createdBy, medium, createdAt, reason } = rule;
      this.services.events.emit('approval-rule:added', {
        id,
        participant,
        tool,
        createdBy,
        createdAt,
        ...(pattern !== undefined ? { pattern } : {}),
        ...(medium !== undefined ? { medium } : {}),
        ...(reason !== undefined ? { reason } : {}),
      });
    }
  }

  private subject(name: string): PolicySubject | undefined {
    return this.services.tools.get(name);
  }

  private ruleMaker(id: string | undefined): string {
    const user = id === undefined ? this.services.collective.defaultUser() : this.services.collective.get(id);
    if (!user)
      throw new LegionError(
        'no_user',
        id === undefined
          ? 'The collective has no user participant to make the rule as; pass "createdBy".'
          : `No participant "${id}" to make the rule as.`,
      );
    if (user.type !== 'user')
      throw new LegionError(
        'not_a_user',
        `Only a user makes "approve always" rules, and ${user.id} is a${user.type === 'agent' ? 'n' : ''} ${user.type}.`,
        { participantId: user.id },
      );
    return user.id;
  }

  /**
   * Checks what a surface answered before it counts: an "approve always" that
   * cannot be made (a pattern that does not match, a command no rule approves)
   * throws, so the surface is told, and another surface (or a later answer) decides.
   */
  async check(requests: readonly ApprovalView[], answers: readonly ApprovalAnswer[]): Promise<void> {
    for (const answer of answers) {
      if (answer.decision !== 'approve' || rememberOf(answer) !== 'always') continue;
      const request = requests.find((candidate) => candidate.id === answer.id);
      if (!request) continue;
      if (!this.subject(request.tool)) await this.services.tools.ready();
      const pattern = this.patternFor(request, answer.pattern);
      if (!pattern.ok)
        throw new LegionError('approval_rule_invalid', `${answer.id}: no "approve always" rule can be made: ${pattern.error}.`, {
          requestId: answer.id,
        });
    }
  }
}
