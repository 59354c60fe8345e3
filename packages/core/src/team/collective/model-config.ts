import { z } from 'zod';

/** An endpoint such as `http://localhost:11434/v1`; `localhost:11434` alone parses as a URL with scheme "localhost". */
export const HttpUrlSchema = z.url({ protocol: /^https?$/ });

export const ModelConfigSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    baseURL: HttpUrlSchema.optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().optional(),
  })
  .strict();
export type ModelConfig = z.infer<typeof ModelConfigSchema>;
