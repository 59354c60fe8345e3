import { z } from 'zod';
import { HttpUrlSchema, ModelConfigSchema, WorkspaceLimitsSchema } from '../collective/participant.js';
import { ModelPriceSchema } from './pricing.js';
import { McpServersSchema, type McpServerConfig } from './mcp-server-config.js';
import { ApprovalAuthoritySchema, PoliciesSchema, type ApprovalAuthority } from '../collective/policy.js';
import { isValidIdPart } from '../collective/participant-id.js';
import { ContextOverridesSchema, ModelWindowSchema, type ContextOverrides, type ModelWindow } from '../collective/context-schema.js';
import { SandboxNetworkSchema, type SandboxNetwork } from './sandbox-network.js';

export const CONFIG_FORMAT_VERSION = 1;

export const ProviderSettingsSchema = z
  .object({
    apiKey: z.string().min(1).optional(),
    baseURL: HttpUrlSchema.optional(),
    /**
     * Other endpoints this provider's key may be sent to when a participant's
     * `model.baseURL` points there (a proxy, a gateway). The key always goes to
     * the provider's own endpoint and to `baseURL`; anywhere else it is refused.
     */
    keyOrigins: z.array(HttpUrlSchema).optional(),
    /** The whole model call, retries and waits included (default 10 minutes). */
    timeoutMs: z.number().int().positive().optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    /** Silence between stream events that ends an attempt as stalled (default 60 s). */
    idleTimeoutMs: z.number().int().positive().optional(),
    /** The longest `retry-after` waited out (default 60 s); a longer one ends the call with an error. */
    maxRetryWaitMs: z.number().int().nonnegative().optional(),
  })
  .strict();

export const StorageSettingsSchema = z
  .object({
    /**
     * `message`: fsync every appended message (survives power loss, slower);
     * `turn`: fsync when a turn ends; `never`: leave it to the OS (survives a
     * process crash, which is what SIGKILL tests prove).
     */
    fsync: z.enum(['message', 'turn', 'never']),
    /**
     * Where sessions are kept: the workspace's files (default) or a PostgreSQL database
     * (`@legion-collective/store-postgres`) shared by many processes and machines.
     */
    kind: z.enum(['files', 'postgres']).optional(),
    /**
     * The database, as a `postgres://` URL (`LEGION_DATABASE_URL` comes first). In the workspace config
     * only without a password: it is meant for git (use PGPASSWORD, ~/.pgpass or the global config).
     */
    url: z.string().min(1).optional(),
  })
  .strict();

/** See `sandbox` in the config layer (and `SandboxMode` in tools/child-processes/sandbox.ts, the same three). */
export const SandboxModeSchema = z.enum(['on', 'off', 'required']);

/** What commands run by tools (shell_run, process_start, declarative shell tools) may see of Legion's environment. */
export const ShellSettingsSchema = z
  .object({
    /**
     * Variables passed to commands although they hold one of Legion's own keys
     * (a provider's API key, a LEGION_* secret, a value equal to a configured key),
     * which are withheld otherwise. Layers add to the list.
     */
    passEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as "OPENAI_API_KEY"')),
  })
  .strict();

/**
 * `legion mcp serve`: which agents an MCP client may ask, and the participant
 * its requests come from (a user that is not the human: approvals it may not
 * give go to the human).
 */
export const McpServeSettingsSchema = z
  .object({
    /** Agents offered as `ask_<id>` tools: `"all"` or a list of ids; default the entry agent only. */
    expose: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]),
    caller: z
      .object({
        id: z.string().refine(isValidIdPart, 'expected a participant id such as "mcp" (letters, digits, ".", "-", single "_")'),
        name: z.string().min(1),
        /** What the MCP client may approve itself (default `none`: every approval goes to the human). */
        approvalAuthority: ApprovalAuthoritySchema,
      })
      .strict()
      .partial(),
    /**
     * How long a question an agent asks the user during an MCP call waits for your own answer (the
     * REPL, the web UI, `legion answer`) when the MCP client cannot answer it (no elicitation);
     * after it, the agent is told you are not available, as in a headless run. Default 120.
     */
    questionWaitSeconds: z.number().int().nonnegative(),
    /**
     * Over HTTP, how long an MCP session with no request in flight lives before it is closed (a
     * client that quits without DELETE would otherwise hold it until the server stops); a later
     * request in it gets 404 and the client initializes anew. Default 1800 (30 min).
     */
    sessionIdleSeconds: z.number().positive(),
    /** Over HTTP, how many MCP sessions may be open at once; one more `initialize` is refused. Default 64. */
    maxSessions: z.number().int().positive(),
  })
  .strict()
  .partial();
/** OpenTelemetry spans (emitted only when the application, or `legion` with OTEL_EXPORTER_OTLP_ENDPOINT, registers an SDK). */
export const TelemetrySettingsSchema = z
  .object({
    /**
     * Message text, tool arguments and results in spans. Unset: the environment's
     * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true decides; otherwise off.
     */
    captureContent: z.boolean(),
  })
  .strict();

/** `https://agents.example.com`: scheme, host and port, nothing after. */
const HttpOriginSchema = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) && new URL(value).origin === value, {
    message: 'expected an origin such as "https://agents.example.com" (http or https, no path or trailing "/")',
  });

/**
 * What Legion sends to the remote A2A agents of one origin. Global config only: a participant file (which a
 * model may write) names a URL, and credentials go only to the origin the user listed them for.
 */
export const RemoteAgentSettingsSchema = z
  .object({
    /** Request headers (`Authorization`); values may use `${env:NAME}`. */
    headers: z.record(z.string().min(1), z.string()),
  })
  .strict();
export type RemoteAgentSettings = z.infer<typeof RemoteAgentSettingsSchema>;

/** Every field optional: each layer supplies some, defaults supply the rest. */
export const ConfigLayerSchema = z
  .object({
    version: z.literal(CONFIG_FORMAT_VERSION).optional(),
    entryAgent: z.string().min(1).optional(),
    defaultModel: ModelConfigSchema.optional(),
    limits: WorkspaceLimitsSchema.partial().optional(),
    providers: z.record(z.string(), ProviderSettingsSchema).optional(),
    storage: StorageSettingsSchema.partial().optional(),
    /**
     * USD per million tokens by exact model id (dated aliases included) or `provider/model`, or a family
     * glob ending in `*` (`gpt-5*`); comes before the list prices. Local models are free unless priced here.
     */
    pricing: z.record(z.string(), ModelPriceSchema).optional(),
    /** MCP servers whose tools agents may use (`mcp__<server>__<tool>`); a later layer replaces a server of the same name. */
    mcpServers: McpServersSchema.optional(),
    /** Tool approval policies for every agent of the workspace (after each agent's own). */
    policies: PoliciesSchema.optional(),
    /** How headless runs answer approvals nobody is there to answer. */
    approval: z
      .object({ headless: z.enum(['prompt', 'auto', 'deny']) })
      .strict()
      .partial()
      .optional(),
    shell: ShellSettingsSchema.partial().optional(),
    /**
     * Whether commands a model wrote (shell_run, process_start, shell workspace tools) run in the OS
     * sandbox (bubblewrap on Linux): writes only inside the workspace (not .legion/), secrets'
     * folders hidden, no network unless `sandboxNetwork` gives one. `on` (default): sandboxed where it
     * works here, else unsandboxed with the reason shown; `required`: never unsandboxed (a command
     * is refused, with why and how to fix); `off`: never sandboxed. `legion doctor` says which applies.
     */
    sandbox: SandboxModeSchema.optional(),
    /**
     * The network of sandboxed commands: `off` (default: none at all, the host's localhost included), `on` (the host's,
     * whole) or `{ "allow": ["registry.npmjs.org", "*.github.com"] }` (HTTP and HTTPS through Legion's proxy to those hosts only).
     */
    sandboxNetwork: SandboxNetworkSchema.optional(),
    /** Every agent's context budget (a profile and any of its fields); an agent's own `context` comes after. */
    context: ContextOverridesSchema.optional(),
    /** Context windows by model id (`claude-sonnet-4-5`) or `provider/model`; extends and corrects the built-in model table. */
    models: z.record(z.string(), ModelWindowSchema).optional(),
    mcpServe: McpServeSettingsSchema.optional(),
    telemetry: TelemetrySettingsSchema.partial().optional(),
    /** Headers for remote A2A agents (`type: "a2a"` participants), by origin; global config only. */
    remoteAgents: z.record(HttpOriginSchema, RemoteAgentSettingsSchema).optional(),
  })
  .strict();
export type ConfigLayer = z.infer<typeof ConfigLayerSchema>;

export interface ResolvedConfig {
  entryAgent?: string | undefined;
  defaultModel: z.infer<typeof ModelConfigSchema>;
  limits: z.infer<typeof WorkspaceLimitsSchema>;
  providers: Record<string, z.infer<typeof ProviderSettingsSchema>>;
  storage: z.infer<typeof StorageSettingsSchema>;
  pricing: Record<string, z.infer<typeof ModelPriceSchema>>;
  mcpServers: Record<string, McpServerConfig>;
  policies: z.infer<typeof PoliciesSchema>;
  approval: { headless: 'prompt' | 'auto' | 'deny' };
  shell: z.infer<typeof ShellSettingsSchema>;
  sandbox: z.infer<typeof SandboxModeSchema>;
  sandboxNetwork: SandboxNetwork;
  context: ContextOverrides;
  models: Record<string, ModelWindow>;
  mcpServe: {
    expose?: 'all' | string[] | undefined;
    caller: { id: string; name: string; approvalAuthority: ApprovalAuthority };
    questionWaitSeconds: number;
    sessionIdleSeconds: number;
    maxSessions: number;
  };
  telemetry: Partial<z.infer<typeof TelemetrySettingsSchema>>;
  remoteAgents: Record<string, RemoteAgentSettings>;
}

export const DEFAULT_CONFIG: ResolvedConfig = {
  // Not claude-sonnet-4-5: Anthropic ends it on 2026-11-30 (the SDK warns at every call). Not Sonnet 5 or later:
  // they refuse a non-default temperature and return the text between tool calls as thinking blocks.
  defaultModel: { provider: 'anthropic', model: 'claude-sonnet-4-6' },
  limits: {
    maxDepth: 5,
    maxIterations: 25,
    toolTimeoutMs: 120_000,
    maxRepeatedToolCalls: 3,
    maxMessageBytes: 1_048_576,
    maxReplyBytes: 1_048_576,
    maxParallelDelegates: 8,
    maxModelCallsPerMessage: 300,
    maxDelegationsPerMessage: 50,
  },
  providers: {},
  storage: { fsync: 'turn' },
  pricing: {},
  mcpServers: {},
  policies: {},
  approval: { headless: 'prompt' },
  shell: { passEnv: [] },
  sandbox: 'on',
  sandboxNetwork: 'off',
  context: {},
  models: {},
  mcpServe: {
    caller: { id: 'mcp', name: 'MCP client', approvalAuthority: 'none' },
    questionWaitSeconds: 120,
    sessionIdleSeconds: 1800,
    maxSessions: 64,
  },
  telemetry: {},
  remoteAgents: {},
};
