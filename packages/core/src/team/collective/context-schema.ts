import { z } from 'zod';
import { ModelConfigSchema } from './model-config.js';

/**
 * How much of its model's window an agent may fill, and what gives way first
 * (`../shared/seeds/002_*`: Colony's profiles). `small` is for ~4k-token models,
 * `cloud` sets its triggers relative to the model's window, `auto` picks one of
 * them from the window. Every field can be overridden in the config (`context`)
 * and per agent (its `context`), field by field.
 */
export const ContextProfileNameSchema = z.enum(['auto', 'small', 'cloud']);
export type ContextProfileName = z.infer<typeof ContextProfileNameSchema>;

export const ContextSettingsSchema = z
  .object({
    profile: ContextProfileNameSchema,
    /** Tokens the model takes in one request, input and output together (default: the model table). */
    window: z.number().int().positive(),
    /** Tokens kept free for the model's reply. */
    outputReserve: z.number().int().positive(),
    /** A tool result above this many tokens goes whole to the session's artifacts; the context keeps a preview and a reference. */
    evictAboveTokens: z.number().int().positive(),
    /** Past this many context tokens, old tool results beyond the protected recent part are pruned. */
    pruneAtTokens: z.number().int().positive(),
    /** Past this many context tokens, the older part of the conversation is summarized (a compaction). */
    summarizeAtTokens: z.number().int().positive(),
    /** The newest part of the context (tokens) that is never pruned or summarized. */
    protectRecentTokens: z.number().int().nonnegative(),
    /** User and peer messages re-injected verbatim after a compaction. */
    keepRecentMessages: z.number().int().nonnegative(),
    /** The scratchbook's pinned notes are offered and survive compaction. */
    scratchbook: z.boolean(),
    /** The most of one tool's output kept as an artifact (bytes); beyond it the output is cut, saying so. */
    artifactMaxBytes: z.number().int().positive(),
    /** `full`: every tool's whole schema in every request; `compact`: short descriptions, families loaded on demand. */
    toolSchemas: z.enum(['full', 'compact']),
    /** The model that writes summaries (default: the agent's own). */
    summarizer: ModelConfigSchema.optional(),
  })
  .strict();
export type ContextSettings = z.infer<typeof ContextSettingsSchema>;

/** What a config layer or an agent may set: any field, the rest comes from the profile. */
export const ContextOverridesSchema = ContextSettingsSchema.partial().strict();
export type ContextOverrides = z.infer<typeof ContextOverridesSchema>;

/** A model's window and output reserve, as the config may correct the built-in model table. */
export const ModelWindowSchema = z
  .object({
    window: z.number().int().positive(),
    outputReserve: z.number().int().positive().optional(),
  })
  .strict();
export type ModelWindow = z.infer<typeof ModelWindowSchema>;
