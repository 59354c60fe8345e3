import type { Legion } from '@legion-collective/core';

export type DirectCallResult = { status: 'success'; content: string } | { status: 'error'; error: string };

/**
 * A tool run for another extension (`executeTool` of the API) or the editor's agent, judged by the workspace's
 * policies as the user's own call: a deny is a deny by this route too, and a call that needs
 * approval runs only once `confirm` says the user approved it.
 */
export async function runDirectCall(
  legion: Legion,
  name: string,
  input: unknown,
  confirm: (question: string) => Promise<boolean>,
  signal?: AbortSignal,
): Promise<DirectCallResult> {
  await legion.tools.ready();
  const tool = legion.tools.get(name);
  // Refused here, never handed on without `as`: a call that reaches core unjudged would run as whoever core picks.
  if (!tool) {
    const available =
      legion.tools
        .list()
        .map((known) => known.name)
        .join(', ') || '(none)';
    return { status: 'error', error: `Legion has no tool "${name}", so nothing was run. Call one of: ${available}.` };
  }
  const user = legion.collective.defaultUser();
  if (!user)
    return {
      status: 'error',
      error: `The collective has no user participant to run ${name} as: add one to .legion/collective/participants/.`,
    };
  // Judged on the input as the tool will run it (schema defaults filled in), as an agent's call is: `{}` must not slip past a rule on the default path.
  const parsed = tool.inputSchema.safeParse(input);
  // Invalid input: core's own error names the field and the fix, and it runs nothing; still as the user.
  if (!parsed.success) return legion.executeTool(name, input, { as: user.id });
  const decision = legion.auth.evaluate({ participant: user, tool, input: parsed.data });
  if (decision.mode === 'deny') return { status: 'error', error: `${name} is denied (${decision.source}): ${decision.reason}` };
  if (
    decision.mode === 'requires_approval' &&
    !(await confirm(`An extension asks Legion to run ${name} with ${JSON.stringify(input)} (${decision.reason}).`))
  ) {
    return { status: 'error', error: `The user did not approve running ${name}.` };
  }
  return legion.executeTool(name, input, { as: user.id, ...(signal ? { signal } : {}) });
}
