import { z } from 'zod';

/** One thing `legion doctor` verified. */
export const DoctorCheckSchema = z
  .object({
    /** What was checked, naming the file, agent or server: `participant .legion/collective/participants/coordinator.json`. */
    name: z.string(),
    category: z.enum(['node', 'workspace', 'config', 'participants', 'providers', 'mcp', 'tools', 'context']),
    status: z.enum(['passed', 'failed', 'skipped']),
    /** What was found (passed), or why it was not checked (skipped). */
    detail: z.string().optional(),
    /** What works but deserves attention (passed): an unknown model's guessed window, tool definitions over the budget. */
    warning: z.string().optional(),
    /** What is wrong (failed). */
    error: z.string().optional(),
    /** What to do about it (failed). */
    fix: z.string().optional(),
    /** The file the check is about, relative to the workspace where it is inside it. */
    file: z.string().optional(),
    durationMs: z.number().int().nonnegative().optional(),
  })
  .strict();
export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;

/** What `legion doctor --json` prints on stdout; stable field names for scripts and agents. */
export const DoctorReportSchema = z
  .object({
    version: z.literal(1),
    timestamp: z.string(),
    /** The workspace root checked, or null when none was found. */
    workspace: z.string().nullable(),
    success: z.boolean(),
    summary: z.object({ passed: z.number().int(), failed: z.number().int(), skipped: z.number().int() }).strict(),
    checks: z.array(DoctorCheckSchema),
  })
  .strict();
export type DoctorReport = z.infer<typeof DoctorReportSchema>;

export function buildReport(workspace: string | null, checks: DoctorCheck[]): DoctorReport {
  const count = (status: DoctorCheck['status']): number => checks.filter((check) => check.status === status).length;
  const summary = { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  // Parsed on the way out: what scripts read is exactly what the schema promises.
  return DoctorReportSchema.parse({
    version: 1,
    timestamp: new Date().toISOString(),
    workspace,
    success: summary.failed === 0,
    summary,
    checks,
  });
}
