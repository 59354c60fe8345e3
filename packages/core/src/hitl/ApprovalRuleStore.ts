import { existsSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError, errorMessage, LegionError } from '../kernel/index.js';
import { readJsonFile, writeJsonIfAbsent, WorkspacePaths } from '../store/index.js';
import { ApprovalRuleSchema, isValidRuleId, type ApprovalRule } from './approval-rule.js';

/** What was last read of one rule file, kept while the file stays the same. */
interface Cached {
  stamp: string;
  rule?: ApprovalRule;
  problem?: ConfigError;
  /** Whether `usable` has reported the problem (it does once per change of the file). */
  reported?: boolean;
}

/**
 * `.legion/collective/approval-rules/<id>.json`, one rule per file. A file is
 * created exclusively and never rewritten, so racing creators cannot lose each
 * other's rules and Legion never writes over what a person edited; removing a
 * rule removes its file. A broken file is reported with its path, field and
 * fix, and left as it is.
 */
export class ApprovalRuleStore {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly paths: WorkspacePaths) {}

  get directory(): string {
    return this.paths.approvalRulesDir;
  }

  /** Every rule, in creation order; throws the `ConfigError` of the first broken file. */
  list(): ApprovalRule[] {
    const rules: ApprovalRule[] = [];
    for (const entry of this.read()) {
      if (entry.problem) throw entry.problem;
      rules.push(entry.rule!);
    }
    return sortRules(rules);
  }

  /**
   * The rules that parse, for deciding calls: a broken file approves nothing
   * (the call is asked about, as without the rule) and is reported to
   * `onProblem` once per change of the file.
   */
  usable(onProblem: (problem: ConfigError) => void): ApprovalRule[] {
    const rules: ApprovalRule[] = [];
    for (const entry of this.read()) {
      if (entry.rule) rules.push(entry.rule);
      else if (entry.problem && !entry.reported) {
        entry.reported = true;
        onProblem(entry.problem);
      }
    }
    return rules;
  }

  /** Every rule file with what it holds or what is wrong with it, for a report that lists them all (`legion doctor`). */
  inspect(): Array<{ file: string; rule?: ApprovalRule | undefined; error?: ConfigError | undefined }> {
    return this.names().map((id) => {
      const entry = this.readOne(`${id}.json`);
      return { file: this.paths.display(this.file(id)), rule: entry.rule, error: entry.problem };
    });
  }

  /** Writes a new rule; false if a rule with its id exists already (the first one stays). */
  create(rule: ApprovalRule): boolean {
    const parsed = ApprovalRuleSchema.parse(rule);
    return writeJsonIfAbsent(this.file(parsed.id), parsed);
  }

  /** Deletes a rule's file (a broken one too: naming it is the user's fix) and returns what it held, if it parsed. */
  remove(id: string): ApprovalRule | undefined {
    if (!isValidRuleId(id) || !existsSync(this.file(id))) {
      const known = this.names();
      throw new LegionError(
        'approval_rule_not_found',
        `No approval rule "${id}". Rules: ${known.join(', ') || '(none)'}. List them with "legion approvals rules".`,
        { id, known },
      );
    }
    const entry = this.readOne(`${id}.json`);
    unlinkSync(this.file(id));
    this.cache.delete(`${id}.json`);
    return entry.rule;
  }

  private file(id: string): string {
    return join(this.directory, `${id}.json`);
  }

  private names(): string[] {
    if (!existsSync(this.directory)) return [];
    return readdirSync(this.directory)
      .filter((name) => name.endsWith('.json'))
      .map((name) => basename(name, '.json'))
      .sort();
  }

  private read(): Cached[] {
    const names = this.names();
    const present = new Set(names.map((id) => `${id}.json`));
    for (const name of this.cache.keys()) if (!present.has(name)) this.cache.delete(name);
    return names.map((id) => this.readOne(`${id}.json`));
  }

  private readOne(name: string): Cached {
    const path = join(this.directory, name);
    let stamp: string;
    try {
      const stats = statSync(path);
      stamp = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    } catch {
      return { stamp: '' };
    }
    const cached = this.cache.get(name);
    if (cached?.stamp === stamp) return cached;
    const entry: Cached = { stamp };
    const display = this.paths.display(path);
    try {
      const rule = readJsonFile(path, ApprovalRuleSchema, { what: 'approval rule file', displayPath: display });
      const expected = basename(name, '.json');
      if (rule.id !== expected) {
        throw new ConfigError({
          file: display,
          field: 'id',
          problem: `id "${rule.id}" does not match the file name`,
          fix: `set "id" to "${expected}" or rename the file to ${rule.id}.json`,
        });
      }
      entry.rule = rule;
    } catch (error) {
      entry.problem =
        error instanceof ConfigError
          ? error
          : new ConfigError({
              file: display,
              field: '',
              problem: `cannot be read (${errorMessage(error)})`,
              fix: 'make it readable, or remove it',
              cause: error,
            });
    }
    this.cache.set(name, entry);
    return entry;
  }
}

/** The approval rule files of the workspace at `root`, each with its rule or its `ConfigError`; nothing is changed. */
export function inspectApprovalRuleFiles(
  root: string,
): Array<{ file: string; rule?: ApprovalRule | undefined; error?: ConfigError | undefined }> {
  return new ApprovalRuleStore(new WorkspacePaths(root)).inspect();
}

function sortRules(rules: ApprovalRule[]): ApprovalRule[] {
  return rules.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
