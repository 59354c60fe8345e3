import { z } from 'zod';

/**
 * A `ProcessIdentity` as records on disk keep it. Beside process-identity.ts, not in it: that file
 * has no dependencies, so that a test compiles it alone into a child process (file-lock.test.ts).
 */
export const ProcessIdentitySchema = z.lazy(() =>
  z.object({
    pid: z.number().int(),
    host: z.string(),
    startTime: z.string().optional(),
    bootId: z.string().optional(),
    pidNamespace: z.string().optional(),
  }),
);
