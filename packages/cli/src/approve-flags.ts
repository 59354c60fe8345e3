/**
 * The "remember" flags of `legion approve` and the REPL's `/approve`, in the one vocabulary of
 * approval answers: `--this-session` is a prompt's 2 (approve for this session), `--rule` (or `--pattern GLOB`) its 3 (approve always).
 * `--always` was "this session" before "always" named a rule on every other surface: it keeps that
 * meaning (a script's approval never silently widens to a rule), with a warning, until it is removed.
 */
export interface ApproveFlags {
  thisSession?: boolean | undefined;
  always?: boolean | undefined;
  rule?: boolean | undefined;
  pattern?: string | undefined;
}

export type ApproveChoice =
  { ok: true; choice: 'once' | 'session' | 'always'; pattern?: string; deprecation?: string } | { ok: false; error: string };

export const ALWAYS_DEPRECATION =
  '--always is deprecated: it means --this-session here, but "always" is a rule everywhere else (3 at a prompt). Use --this-session, or --rule for every session.';

export function approveChoiceOf(flags: ApproveFlags): ApproveChoice {
  const session = flags.thisSession === true || flags.always === true;
  const rule = flags.rule === true || flags.pattern !== undefined;
  if (rule && session)
    return {
      ok: false,
      error: `${flags.thisSession ? '--this-session' : '--always (this session)'} and --rule (every session) ask for different things; give one of them.`,
    };
  const deprecation = flags.always ? { deprecation: ALWAYS_DEPRECATION } : {};
  if (rule) return { ok: true, choice: 'always', ...(flags.pattern !== undefined ? { pattern: flags.pattern } : {}), ...deprecation };
  return { ok: true, choice: session ? 'session' : 'once', ...deprecation };
}
