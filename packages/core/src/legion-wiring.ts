import type { Collective, ResolvedConfig } from './team/index.js';
import {
  ApprovalGate,
  ApprovalRules,
  ApprovalRuleStore,
  askElicitation,
  createApprovalResponseTool,
  createListApprovalsTool,
  UserRuntime,
  type UserSurfaces,
} from './hitl/index.js';
import { settingsForAgent } from './team/index.js';
import type { SessionStore } from './engine/index.js';
import type { EventBus } from './kernel/index.js';
import type { ProviderFactory } from './model/index.js';
import { A2aRuntime, AgentRuntime, MockRuntime, RuntimeRegistry } from './engine/index.js';
import type { SurfacePresence, WorkspacePaths } from './store/index.js';
import {
  createCommunicateTool,
  BUILTIN_PROVIDER_ID,
  registerBuiltinTools,
  withBuiltinParameters,
  ProcessRegistry,
  createMcpToolProvider,
  type McpToolProvider,
  createWorkspaceToolProvider,
  ToolExecutor,
  commandEnvironment,
  describeReaped,
  reapLeftoverGroups,
  configSecretValues,
  createRedactor,
} from './tools/index.js';
import { AuthEngine } from './authorization/index.js';
import type { SandboxSettings, ToolRegistry } from './tools/index.js';

/*
 * The stages `Legion`'s constructor wires a workspace in, in order: secrets, authorization,
 * runtimes, (sessions,) tools. Each takes what the stages before it made and returns its parts,
 * so that no part is reached before it exists.
 */
/** Keys from the environment and the global config never reach a tool result, an error event or a command's environment. */
export function secretsStage(
  env: NodeJS.ProcessEnv,
  config: ResolvedConfig,
  events: EventBus,
): { executor: ToolExecutor; commandEnv: NodeJS.ProcessEnv; useConfig: (config: ResolvedConfig) => void } {
  let current = createRedactor({ env, config });
  // Through one indirection, so that a key added to the global config while the process runs is redacted too.
  const redact = (text: string): string => current(text);
  events.redactWith(redact);
  return {
    useConfig: (reloaded) => {
      current = createRedactor({ env, config: reloaded });
    },
    executor: new ToolExecutor(redact),
    commandEnv: commandEnvironment(env, {
      passEnv: config.shell.passEnv,
      secretValues: configSecretValues(config, env).map((secret) => secret.value),
    }),
  };
}

/**
 * The policy engine and the "approve always" rules. They need each other: the engine reads the
 * rules when a call would ask, the rules judge their patterns with the engine. The engine is made
 * first and reaches the rules through `rules`, assigned on the next line, before anything can call it.
 */
export function authorizationStage(parts: {
  paths: WorkspacePaths;
  config: ResolvedConfig;
  collective: Collective;
  events: EventBus;
  tools: ToolRegistry;
}): { auth: AuthEngine; approvalRules: ApprovalRules } {
  const { paths } = parts;
  let rules: ApprovalRules | undefined;
  const auth = new AuthEngine(parts.config.policies, paths.root, {
    approvalRules: (participantId) => rules?.rulesFor(participantId) ?? [],
  });
  rules = new ApprovalRules(new ApprovalRuleStore(paths), {
    collective: parts.collective,
    tools: parts.tools,
    events: parts.events,
    auth,
    display: (path) => paths.display(path),
  });
  return { auth, approvalRules: rules };
}

/** Who answers a message: agents (the loop), mocks, and users through the attached surfaces, which also decide approvals. */
export function runtimesStage(parts: {
  paths: WorkspacePaths;
  config: ResolvedConfig;
  collective: Collective;
  events: EventBus;
  surfaces: UserSurfaces;
  presence: SurfacePresence;
  providers: ProviderFactory;
  tools: ToolRegistry;
  executor: ToolExecutor;
  auth: AuthEngine;
  approvalRules: ApprovalRules;
  env: NodeJS.ProcessEnv;
  /** The config as it is now (read again when its files change): a remote agent's credentials and bounds. */
  currentConfig: () => ResolvedConfig;
}): { registry: RuntimeRegistry; agent: AgentRuntime } {
  const { collective, config, events, surfaces, approvalRules } = parts;
  const gate = new ApprovalGate(
    collective,
    async (request) => {
      const outcome = await surfaces.approve({ ...request, check: (answers) => approvalRules.check(request.requests, answers) });
      return outcome.status === 'answered' ? { answers: outcome.value, medium: outcome.medium } : undefined;
    },
    {
      recorder: approvalRules,
      onProblem: (message) => events.emit('error:raised', { scope: 'approval rules', message, code: 'approval_rule_invalid' }),
    },
  );
  const agent = new AgentRuntime({
    collective,
    config,
    providers: parts.providers,
    tools: parts.tools,
    executor: parts.executor,
    auth: parts.auth,
    gate,
    workspaceRoot: parts.paths.root,
    env: parts.env,
  });
  const registry = new RuntimeRegistry();
  registry.register('agent', agent);
  registry.register('mock', new MockRuntime());
  registry.register('a2a', new A2aRuntime({ config: parts.currentConfig, env: parts.env }));
  registry.register(
    'user',
    new UserRuntime(surfaces, { maxAnswerBytes: config.limits.maxMessageBytes, elsewhere: () => parts.presence.elsewhere() }),
  );
  return { registry, agent };
}

/**
 * The tools: background processes, the workspace's tool files (read now, so that a broken one is
 * among the warnings as soon as the workspace is open), the MCP servers, and the built-ins,
 * registered on first use of the registry.
 */
export function toolsStage(parts: {
  paths: WorkspacePaths;
  config: ResolvedConfig;
  /** The config as it is now (it is read again when its files change): what a delegation's limits are judged by. */
  currentConfig: () => ResolvedConfig;
  collective: Collective;
  env: NodeJS.ProcessEnv;
  commandEnv: NodeJS.ProcessEnv;
  events: EventBus;
  registry: ToolRegistry;
  sessions: SessionStore;
  surfaces: UserSurfaces;
  agentRuntime: AgentRuntime;
}): { processes: ProcessRegistry; mcp: McpToolProvider | undefined; disposeUnregistered: () => Promise<void> } {
  const { paths, config, collective, events, registry, agentRuntime } = parts;
  // Read at each command: an edited config's sandbox applies to the next command, as its policies do.
  const sandbox = (): SandboxSettings => {
    const now = parts.currentConfig();
    return { mode: now.sandbox, network: now.sandboxNetwork };
  };
  const builtinOptions = {
    collective,
    sessions: parts.sessions,
    env: parts.commandEnv,
    sandbox,
    // Tools return their whole output up to the artifact limit; the context previews what is larger than the model should see.
    ...(config.context.artifactMaxBytes !== undefined ? { outputLimitBytes: config.context.artifactMaxBytes } : {}),
  };
  // Made here rather than by the built-in tools, which are built on first use: Legion owns and disposes it.
  const processes = new ProcessRegistry(builtinOptions);
  const workspaceTools = createWorkspaceToolProvider({
    directory: paths.toolsDir,
    workspaceRoot: paths.root,
    events,
    env: parts.env,
    commandEnv: parts.commandEnv,
    sandbox,
  });
  workspaceTools.getTools();
  const mcp =
    Object.keys(config.mcpServers).length > 0
      ? createMcpToolProvider({
          servers: config.mcpServers,
          workspaceRoot: paths.root,
          events,
          env: parts.env,
          // A server's question during a tool call goes to the user through the attached surfaces.
          elicit: (request, { signal }) => askElicitation(parts.surfaces, collective, request, signal),
        })
      : undefined;
  let registered = false;
  // Building every tool and its schemas costs some 10 ms that a command which never looks at
  // tools (`legion sessions`) need not pay: the registry does it when first used.
  registry.fillOnFirstUse(() => {
    registered = true;
    registry.register(
      withBuiltinParameters(
        createCommunicateTool({
          collective,
          workspaceRoot: paths.root,
          limitsFor: (id) => {
            const participant = collective.get(id);
            const now = parts.currentConfig();
            return participant?.type === 'agent' ? settingsForAgent(now, participant).limits : now.limits;
          },
        }),
      ),
      { providerId: BUILTIN_PROVIDER_ID },
    );
    registerBuiltinTools(registry, {
      ...builtinOptions,
      processes,
      // What a model writes into an agent's limits may only lower these.
      workspaceLimits: config.limits,
      // What list_tools reports is exactly what the agent's model is shown.
      toolsFor: (id) => {
        const participant = collective.get(id);
        return participant?.type === 'agent' ? [...agentRuntime.toolsFor(participant).values()] : [];
      },
    });
    registry.register(withBuiltinParameters(createApprovalResponseTool()), { providerId: BUILTIN_PROVIDER_ID });
    registry.register(withBuiltinParameters(createListApprovalsTool()), { providerId: BUILTIN_PROVIDER_ID });
    // After the built-ins, so that a workspace or MCP tool with a taken name is reported and left out.
    registry.registerToolProvider(workspaceTools);
    // Deferred: no MCP server starts until an agent's turn first needs its tools.
    if (mcp) registry.registerToolProvider(mcp, { deferred: true });
  });
  return {
    processes,
    mcp,
    disposeUnregistered: async () => {
      if (registered) return;
      workspaceTools.dispose();
      await mcp?.dispose();
    },
  };
}

/** Kills process groups that tools of a dead Legion process (or these interrupted calls) left running, and says so. */
export function endLeftoverProcesses(paths: WorkspacePaths, warn: (line: string) => void, toolUseIds?: ReadonlySet<string>): void {
  for (const reaped of reapLeftoverGroups(paths.processesDir, toolUseIds ? { toolUseIds } : {})) {
    if (reaped.killed) warn(`${paths.display(paths.processesDir)}: ${describeReaped(reaped)}`);
  }
}
