import { z } from 'zod';
import { ApprovalAuthoritySchema, PoliciesSchema } from './policy.js';
import { describeZodError, LegionError } from '../../kernel/index.js';
import { isValidIdPart } from './participant-id.js';
import { HttpUrlSchema, ModelConfigSchema } from './model-config.js';
import { ContextOverridesSchema } from './context-schema.js';

export const PARTICIPANT_FORMAT_VERSION = 1;

export const ParticipantIdSchema = z
  .string()
  .refine(isValidIdPart, 'expected an id of letters, digits, ".", "-" or single "_" (no "__", at most 64 characters)');

/** `all`, `none`, or a list of names (tool names may use globs such as `file_*`). */
export const PermissionSchema = z.union([z.literal('all'), z.literal('none'), z.array(z.string().min(1))]);
export type Permission = z.infer<typeof PermissionSchema>;

export { HttpUrlSchema, ModelConfigSchema, type ModelConfig } from './model-config.js';

export const LimitsSchema = z
  .object({
    /** How many delegation hops below the user a chain may reach. */
    maxDepth: z.number().int().positive(),
    /** Model calls one participant may make while answering one message. */
    maxIterations: z.number().int().positive(),
    /** Default time a tool may run before it is abandoned with an error result. */
    toolTimeoutMs: z.number().int().positive(),
    /** Identical consecutive tool calls that count as a loop. */
    maxRepeatedToolCalls: z.number().int().min(2),
    /** The largest message a participant may send (bytes of UTF-8): it is stored and re-sent to models. */
    maxMessageBytes: z.number().int().positive(),
    /** The largest reply a model may give in one response (bytes of UTF-8 text). */
    maxReplyBytes: z.number().int().positive(),
    /** What a session may spend on model calls (USD, at the prices `/cost` shows); reached, no new model call starts. None by default. */
    maxSessionCostUsd: z.number().positive().optional(),
    /** Tokens a session's model calls may use (input, output and cached, all participants); reached, no new model call starts. None by default. */
    maxSessionTokens: z.number().int().positive().optional(),
    /** `communicate` calls of one response that run at once; the others wait for a free slot, in order. */
    maxParallelDelegates: z.number().int().positive(),
  })
  .strict();
export type Limits = z.infer<typeof LimitsSchema>;

/**
 * Bounds on all the work one message starts: the model calls and delegations of the whole delegation
 * tree it begins (resumed parts included), whichever agents make them. Workspace config only: an
 * agent's own `limits` (which a model may write through create_agent) cannot raise the bound of the
 * message it works for.
 */
export const MessageWorkLimitsSchema = z
  .object({
    /** Model calls of every agent answering one message, its delegates' included (agent loop steps). */
    maxModelCallsPerMessage: z.number().int().positive(),
    /** `communicate` calls made while answering one message, its delegates' included. */
    maxDelegationsPerMessage: z.number().int().positive(),
  })
  .strict();
export type MessageWorkLimits = z.infer<typeof MessageWorkLimitsSchema>;

/** The workspace's `limits`: every agent's defaults, and the bounds of one message's work. */
export const WorkspaceLimitsSchema = LimitsSchema.extend(MessageWorkLimitsSchema.shape).strict();
export type WorkspaceLimits = z.infer<typeof WorkspaceLimitsSchema>;

const baseFields = {
  version: z.literal(PARTICIPANT_FORMAT_VERSION).default(PARTICIPANT_FORMAT_VERSION),
  id: ParticipantIdSchema,
  name: z.string().min(1),
  description: z.string().default(''),
  /** What others should bring to this participant; shown in their system prompts. */
  useFor: z.string().optional(),
  status: z.enum(['active', 'retired']).default('active'),
  /** Whose tool calls it may approve: `*`, `none`, or rules by requester and tool. Users default to `*`, others to `none`. */
  approvalAuthority: ApprovalAuthoritySchema.optional(),
};

export const AgentParticipantSchema = z
  .object({
    ...baseFields,
    type: z.literal('agent'),
    systemPrompt: z.string(),
    /** Falls back to `defaultModel` from the layered config. */
    model: ModelConfigSchema.optional(),
    /** Which tools its model sees. */
    tools: PermissionSchema.default('all'),
    /** Whom it may `communicate` with. */
    delegation: PermissionSchema.default('all'),
    /** Per-tool approval policies for this agent; they come before the workspace's. */
    policies: PoliciesSchema.optional(),
    limits: LimitsSchema.partial().optional(),
    /** This agent's context budget: a profile and any field of it (see `ContextSettingsSchema`). */
    context: ContextOverridesSchema.optional(),
    /**
     * `worktree`: every delegation to it runs in its own git worktree of HEAD, and its change comes
     * back as a diff for a human to apply (as `communicate`'s `isolation`). Needs a git repository.
     */
    isolation: z.enum(['worktree']).optional(),
  })
  .strict();

export const UserParticipantSchema = z
  .object({
    ...baseFields,
    type: z.literal('user'),
    /** Which UI answers for this user: `repl`, later `web`. */
    medium: z.string().min(1).default('repl'),
    /**
     * The human this user stands in for (an MCP client calls on their behalf):
     * approvals it has no authority to give go to that user instead.
     */
    actsFor: z.string().min(1).optional(),
  })
  .strict();

export const MockResponseSchema = z
  .object({
    /** Case-insensitive substring, `/regex/flags`, or `*` for anything. */
    trigger: z.string().min(1),
    response: z.string(),
    delayMs: z.number().int().nonnegative().optional(),
  })
  .strict();
export type MockResponse = z.infer<typeof MockResponseSchema>;

export const MockParticipantSchema = z
  .object({
    ...baseFields,
    type: z.literal('mock'),
    responses: z.array(MockResponseSchema),
    /** Said when no trigger matches. */
    fallback: z.string().optional(),
  })
  .strict();

/**
 * An agent that lives elsewhere and speaks A2A: messages to it go to the agent its card describes. No
 * credentials here (the file is the workspace's, which a model may write): the headers a remote needs
 * come from `remoteAgents` in the global config, by the origin they go to.
 */
export const A2aParticipantSchema = z
  .object({
    ...baseFields,
    type: z.literal('a2a'),
    /** The agent card's URL (`…/.well-known/agent-card.json`), http or https only. */
    url: HttpUrlSchema,
  })
  .strict();

export const ParticipantSchema = z.discriminatedUnion('type', [
  AgentParticipantSchema,
  UserParticipantSchema,
  MockParticipantSchema,
  A2aParticipantSchema,
]);

export type AgentParticipant = z.infer<typeof AgentParticipantSchema>;
export type UserParticipant = z.infer<typeof UserParticipantSchema>;
export type MockParticipant = z.infer<typeof MockParticipantSchema>;
export type A2aParticipant = z.infer<typeof A2aParticipantSchema>;
export type Participant = z.infer<typeof ParticipantSchema>;
export type ParticipantInput = z.input<typeof ParticipantSchema>;
export type ParticipantType = Participant['type'];

/** An agent template: an agent without its identity, under `.legion/templates/<name>.json`. */
export const AgentTemplateSchema = AgentParticipantSchema.omit({ id: true, version: true, status: true })
  .extend({ name: z.string().min(1).optional() })
  .strict();
export type AgentTemplate = z.infer<typeof AgentTemplateSchema>;

/** Validates a participant given in code; caller misuse becomes a LegionError naming the field. */
export function parseParticipant(input: ParticipantInput): Participant {
  const parsed = ParticipantSchema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data;
  const { field, problem, fix } = describeZodError(parsed.error, input);
  const id = typeof (input as { id?: unknown }).id === 'string' ? `"${(input as { id: string }).id}"` : '(without an id)';
  throw new LegionError('participant_invalid', `Participant ${id}: field "${field}" ${problem}. Fix: ${fix}.`, {
    field,
    id: (input as { id?: unknown }).id,
  });
}
