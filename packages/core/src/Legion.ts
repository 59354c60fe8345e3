import {
  Collective,
  initWorkspace,
  addMcpCaller,
  selectStorage,
  loadConfig,
  globalConfigPath,
  changedKeys,
  ConfigWatch,
} from './team/index.js';
import type { Participant, ParticipantInput, ResolvedConfig } from './team/index.js';
import type { Tool, ProcessRegistry, McpToolProvider } from './tools/index.js';
import { isolationProblems, ToolExecutor, ToolRegistry } from './tools/index.js';
import { type ContextReport, registerBuiltinProviders, ProviderFactory } from './model/index.js';
import {
  followSession,
  type Follower,
  type FollowOptions,
  emitStorageWarning,
  SessionStore,
  AgentRuntime,
  RuntimeRegistry,
  type AgentToolsView,
} from './engine/index.js';
import type { Session } from './engine/index.js';
import { LegionError, EventBus, LegionTracer } from './kernel/index.js';
import { ApprovalRules, type UserSurface, UserSurfaces } from './hitl/index.js';
import { SurfacePresence, type AttachedElsewhere, WorkspacePaths, FileSessionBackend } from './store/index.js';
import type { TurnResult } from './session/index.js';
import type { FileClaim, SessionBackend } from './store/index.js';
import { AuthEngine } from './authorization/index.js';
import { authorizationStage, endLeftoverProcesses, runtimesStage, secretsStage, toolsStage } from './legion-wiring.js';
import { callToolDirectly, type DirectCallOptions, type DirectCallResult } from './legion-direct-call.js';
import { contextReportOf, describeToolsOf, type ContextReportOptions, type ReportParts } from './legion-reports.js';

export interface OpenLegionOptions {
  /** Workspace root (the directory that holds `.legion/`). */
  root: string;
  /** Overrides the global config location (default: XDG config dir). */
  globalConfigFile?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Where sessions are kept: their records, conversation logs and leases,
   * approvals, usage and agents' state. Default: the workspace's
   * `.legion/sessions/` files (`FileSessionBackend`). The Legion closes it on `close()`.
   */
  backend?: SessionBackend | undefined;
  /**
   * How long a conversation's lease lasts without a renewal (default 30 s). A
   * running turn renews it every third of this; a process that dies loses it
   * at once (file backend: its pid is checked) or when it expires.
   */
  leaseTtlMs?: number | undefined;
  /**
   * The config already read for this root, global config file and env (`workspaceStorage`), so
   * that it is not read again. Default: read from the files.
   */
  config?: ResolvedConfig | undefined;
}

/**
 * One workspace brought to life: its config, collective, runtimes, tools,
 * providers and sessions, wired together. UIs attach their user with
 * `attachUser` and subscribe to `events`.
 */
export class Legion {
  readonly events: EventBus;
  /** Agents, mocks and the user runtime that asks the attached surfaces; not a door for UIs (that is `attachUser`). */
  private readonly runtimes: RuntimeRegistry;
  private readonly surfaces: UserSurfaces;
  /** Surfaces attached in other processes on this machine (`attachUser(…, { followsWorkspace })`). */
  private readonly presence: SurfacePresence;
  readonly tools: ToolRegistry;
  readonly providers: ProviderFactory;
  readonly sessions: SessionStore;
  readonly executor: ToolExecutor;
  readonly auth: AuthEngine;
  /**
   * The workspace's "approve always" rules (`.legion/collective/approval-rules/`):
   * `list()`, `add()`, `remove(id)`, and `patternFor(request, pattern?)` for a
   * surface that offers "approve always".
   */
  readonly approvalRules: ApprovalRules;
  /** Background processes agents started (process_start); killed on close(). */
  readonly processes: ProcessRegistry;
  /** Disposes the tool providers made at open when the registry was never used, so never given them. */
  private readonly disposeUnregisteredTools: () => Promise<void>;
  /**
   * Problems found since the workspace was opened — a broken tool file, an MCP
   * server that did not start, a broken session, a configured entry agent that
   * does not exist — as `<file>: <field>: <problem>` lines. Kept for a UI that
   * subscribes to events after open, when the first of them have already fired.
   */
  readonly warnings: string[] = [];
  private entryAgentWarned = false;
  private readonly followers = new Set<Follower>();
  private readonly agentRuntime: AgentRuntime;
  /** The configured MCP servers' tools, when there are any: their start failures explain missing tools. */
  private readonly mcp: McpToolProvider | undefined;
  /** The config as last read: the one at open, then each good edit `reloadConfig` took. */
  private current: ResolvedConfig;
  /** The files the config and the roster are read from: what `reloadConfig` looks at. */
  private readonly watch: ConfigWatch;
  /** Parts wired with the config at open that take a new one. */
  private readonly useConfig: (config: ResolvedConfig) => void;

  /**
   * Wires the workspace in stages, each built from what the stages before it made, so that
   * nothing reads a part that does not exist yet: events and secrets → authorization →
   * runtimes → sessions → tools. The one cycle (the policy engine reads the approval rules,
   * which judge their patterns with the engine) is closed inside `authorizationStage`.
   */
  private constructor(
    readonly paths: WorkspacePaths,
    config: ResolvedConfig,
    readonly collective: Collective,
    env: NodeJS.ProcessEnv,
    /** Where everything of every session is stored; this Legion closes it. */
    private readonly backend: SessionBackend,
    leaseTtlMs: number | undefined,
    events: EventBus,
    watch: ConfigWatch,
  ) {
    this.current = config;
    this.watch = watch;
    // In every process, so that a chain an MCP client started resumes wherever its approvals are answered.
    addMcpCaller(collective, config);
    const warn = (line: string): void => this.warn(line);
    this.events = events;
    events.on('storage:warning', (event) => warn(`${event.path}: ${event.problem}`));
    events.on('error:raised', (event) => {
      if (event.scope.startsWith('mcp server')) warn(`${event.scope}: ${event.message}`);
    });
    const secrets = secretsStage(env, config, events);
    this.executor = secrets.executor;
    this.tools = new ToolRegistry({ events });
    this.providers = new ProviderFactory(config.providers);
    registerBuiltinProviders(this.providers, env);
    for (const problem of isolationProblems(paths.root, collective)) warn(problem);

    const authorization = authorizationStage({ paths, config, collective, events, tools: this.tools });
    this.auth = authorization.auth;
    this.approvalRules = authorization.approvalRules;

    this.surfaces = new UserSurfaces(events);
    this.presence = new SurfacePresence(paths.surfacesDir);
    const runtimes = runtimesStage({
      paths,
      config,
      collective,
      events,
      surfaces: this.surfaces,
      presence: this.presence,
      providers: this.providers,
      tools: this.tools,
      executor: this.executor,
      auth: this.auth,
      approvalRules: this.approvalRules,
      env,
      currentConfig: () => this.current,
    });
    this.runtimes = runtimes.registry;
    this.agentRuntime = runtimes.agent;

    this.sessions = new SessionStore(
      {
        collective,
        backend,
        leaseTtlMs,
        events,
        runtimes: this.runtimes,
        maxMessageBytes: config.limits.maxMessageBytes,
        endInterrupted: (toolUseIds) => endLeftoverProcesses(paths, warn, new Set(toolUseIds)),
        tracer: new LegionTracer({
          captureContent:
            config.telemetry.captureContent ?? env['OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT']?.toLowerCase() === 'true',
        }),
        approvalRules: this.approvalRules,
        workspaceRoot: paths.root,
      },
      backend.conversations,
    );

    const tools = toolsStage({
      paths,
      config,
      collective,
      env,
      events,
      commandEnv: secrets.commandEnv,
      registry: this.tools,
      sessions: this.sessions,
      surfaces: this.surfaces,
      agentRuntime: this.agentRuntime,
      currentConfig: () => this.current,
    });
    this.useConfig = (reloaded) => {
      secrets.useConfig(reloaded);
      this.providers.useSettings(reloaded.providers);
      this.auth.usePolicies(reloaded.policies);
      this.agentRuntime.useConfig(reloaded);
    };
    this.processes = tools.processes;
    this.mcp = tools.mcp;
    this.disposeUnregisteredTools = tools.disposeUnregistered;

    // Commands a Legion process that crashed (its supervisor with it) left running.
    endLeftoverProcesses(paths, warn);
    // A configured entry agent that is missing is a problem of the workspace, even when this run names its agent.
    if (collective.agents().length > 0) this.entryAgentId();
  }

  /** The config (defaults → global → workspace) as last read: at open, then at each `reloadConfig` that found a good edit. */
  get config(): ResolvedConfig {
    return this.current;
  }

  /**
   * Takes edits of the config files made since the last look — the global config,
   * `.legion/config.json`, the participant files — so that an open process applies them from its
   * next message (`SessionDriver.send` calls this first). Cheap when nothing changed (a `stat` per
   * file). A good edit replaces the config and the roster and emits `config:reloaded` with what
   * changed; an edit that does not load emits `error:raised` (`config_invalid`) once, and the last
   * good config stays.
   */
  reloadConfig():
    { status: 'unchanged' } | { status: 'applied'; changes: string[]; restartNeeded: string[] } | { status: 'invalid'; problem: string } {
    const check = this.watch.check();
    if (check.status === 'unchanged') return check;
    if (check.status === 'invalid') {
      this.events.emit('error:raised', {
        scope: 'config',
        code: 'config_invalid',
        message: `${check.problem} (the last good config stays in use)`,
      });
      return check;
    }
    const before = this.current;
    const changes = changedKeys(before, check.config);
    const restartNeeded = changes.filter((key) => RESTART_KEYS.some((prefix) => key === prefix || key.startsWith(`${prefix}.`)));
    // The MCP client's caller stays as it was made at open (`mcpServe` needs a restart): `replaceRoster` keeps callers.
    const participants = this.collective.replaceRoster(check.collective).map((id) => `participant ${id}`);
    this.current = check.config;
    this.useConfig(check.config);
    this.entryAgentWarned = false;
    const all = [...changes, ...participants];
    if (all.length > 0) this.events.emit('config:reloaded', { changes: all, restartNeeded });
    return { status: 'applied', changes: all, restartNeeded };
  }

  /** Loads config (defaults → global → workspace) and the collective of an existing workspace. */
  static open(options: OpenLegionOptions): Legion {
    const paths = new WorkspacePaths(options.root);
    // Stamped before reading: an edit made while the files are read is taken at the first message.
    const watch = new ConfigWatch(paths, {
      globalConfigFile: options.globalConfigFile,
      env: options.env,
      globalFile: options.globalConfigFile ?? globalConfigPath(options.env),
    });
    const config =
      options.config ??
      loadConfig({ workspaceConfigFile: paths.configFile, globalConfigFile: options.globalConfigFile, env: options.env }).config;
    const collective = Collective.load(paths);
    if (!options.backend) refuseUnloadedBackend(config, options.env ?? process.env);
    // Made first: the backend reports what it finds broken there.
    const events = new EventBus();
    const backend =
      options.backend ??
      new FileSessionBackend({
        root: paths.root,
        fsync: config.storage.fsync,
        onWarning: (warning) => emitStorageWarning(events, warning),
      });
    return new Legion(paths, config, collective, options.env ?? process.env, backend, options.leaseTtlMs, events, watch);
  }

  /**
   * Creates a workspace with these participants (or the default team) and
   * opens it. Files that already exist are kept as they are.
   */
  static create(options: OpenLegionOptions & { participants?: ParticipantInput[]; entryAgent?: string }): Legion {
    initWorkspace(options.root, { participants: options.participants, entryAgent: options.entryAgent });
    return Legion.open(options);
  }

  /**
   * The one door for a user surface (a terminal, a browser, an MCP client):
   * `ask` answers messages sent to the user, `approve` decides approvals
   * (either may be left out). Any number may be attached at once; each
   * question or approval goes to all that can take it and the first answer
   * wins, recorded with its `medium`. With none attached, in this process or
   * another, questions and approvals pause the turn durably (`legion answer`,
   * `legion approve` resume it). `followsWorkspace`: the surface also shows
   * what other processes on this machine ask in every session (`legion serve`), so
   * while it is attached a question raised elsewhere waits for it rather than
   * pausing. Returns the disposer that detaches the surface.
   */
  attachUser(surface: UserSurface, options: { followsWorkspace?: boolean } = {}): () => void {
    const detach = this.surfaces.attach(surface);
    if (!options.followsWorkspace || !surface.ask) return detach;
    const withdraw = this.presence.announce(surface.medium);
    return () => {
      withdraw();
      detach();
    };
  }

  /** The surfaces other live processes on this machine announced (`followsWorkspace`): who may answer a question asked here with none attached. */
  surfacesElsewhere(): AttachedElsewhere[] {
    return this.presence.elsewhere();
  }

  /** Runs one task: the user sends it to an agent (the entry agent by default) in the latest session, or a new one. */
  async runAgent(task: string, options: { agent?: string; session?: Session; signal?: AbortSignal } = {}): Promise<TurnResult> {
    const session = options.session ?? (await this.sessions.resumeOrCreate());
    return this.send(session, task, {
      ...(options.agent ? { to: options.agent } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Every tool, once deferred providers (MCP servers) have listed theirs. */
  async getTools(): Promise<Tool[]> {
    await this.tools.ready();
    return this.tools.list();
  }

  /**
   * Every tool as one agent's model meets it — shown or hidden and why, where
   * it comes from, what a call needs by policy — and the MCP servers whose
   * tools are missing because they failed. Starts the MCP servers, as a turn would.
   */
  describeTools(agentId: string): Promise<AgentToolsView> {
    return describeToolsOf(this.reportParts(), agentId);
  }

  /**
   * What the agent's next model request would carry, counted with the tokenizer: its profile,
   * window, reserve and thresholds, the tokens of its system prompt and tool definitions (and
   * their share of the window), and, given a session, of its conversation there (with
   * `initiator`, default the user; `name` for a named one). Starts the MCP servers and counts
   * their tools, as a turn would, unless `mcp: false` (then only the tools already loaded count).
   * Asks the model's endpoint for its window as a turn would, unless `endpoint: false` (`legion doctor`
   * stays offline).
   */
  contextReport(agentId: string, options: ContextReportOptions = {}): Promise<ContextReport> {
    return contextReportOf(this.reportParts(), agentId, options);
  }

  private reportParts(): ReportParts {
    const { tools, collective, auth, config, agentRuntime, mcp } = this;
    return { tools, collective, auth, config, agentRuntime, mcp };
  }

  /**
   * Runs one tool directly, with input validation and its timeout, judged by
   * the acting participant's policy: a deny is refused by this route too (an
   * extension or script must not reach what the workspace denies). A call the
   * policy leaves to approval runs only when the caller says it obtained one
   * (`approved: true`), or when it acts as a user (the program itself, or a
   * person through it), whose own call needs nobody's approval.
   */
  executeTool(name: string, input: unknown, options: DirectCallOptions = {}): Promise<DirectCallResult> {
    return callToolDirectly(this, name, input, options);
  }

  /** The participant an MCP client's requests come from (`mcpServe.caller`, default `mcp`): a user standing in for the human. */
  mcpCaller(): Participant {
    return this.collective.require(this.config.mcpServe.caller.id);
  }

  /** The participant that takes the user's messages. */
  entryAgentId(): string {
    const entry = this.collective.entryAgent(this.config.entryAgent);
    if (this.config.entryAgent && entry.id !== this.config.entryAgent && !this.entryAgentWarned) {
      this.entryAgentWarned = true;
      this.events.emit('storage:warning', {
        path: this.paths.display(this.paths.configFile),
        offset: 0,
        problem: `entryAgent: "${this.config.entryAgent}" is not an active agent of the collective; messages go to "${entry.id}" instead. Fix: set "entryAgent" to one of ${this.collective
          .agents()
          .map((agent) => agent.id)
          .join(', ')}`,
      });
    }
    return entry.id;
  }

  private warn(line: string): void {
    if (this.warnings.includes(line)) return;
    // Bounded: a long-lived process must not grow a list without end.
    if (this.warnings.length >= 200) this.warnings.shift();
    this.warnings.push(line);
  }

  /** Sends from the default user (or `from`) to the entry agent (or `to`) in a session. */
  async send(
    session: Session,
    message: string,
    options: { from?: string; to?: string; conversation?: string; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    const from = options.from ?? this.collective.defaultUser()?.id;
    if (!from) throw new LegionError('no_user', 'The collective has no user participant to send from: add one, or pass "from".');
    return session.send({
      from,
      to: options.to ?? this.entryAgentId(),
      message,
      conversation: options.conversation,
      signal: options.signal,
    });
  }

  /**
   * Shows work done by other processes on this workspace (a `legion run` in
   * another terminal) as it happens: what they append to this session's
   * conversations (the latest session by default, the one `legion run` would
   * resume) becomes `message:sent` events, their approval requests and
   * decisions `approval:requested` / `approval:decided`, all with `remote:
   * true`. What this Legion appended is not repeated. Starts at the logs' end unless `from`
   * gives a cursor; call the returned function to stop (close() stops them all).
   */
  async follow(session?: string | Session, options: FollowOptions = {}): Promise<Follower> {
    const followed = typeof session === 'string' ? await this.sessions.get(session) : (session ?? (await this.sessions.resumeOrCreate()));
    const follower = await followSession(followed.id, { events: this.events, backend: this.backend }, options);
    const stop = Object.assign(
      () => {
        this.followers.delete(stop);
        follower();
      },
      { sessionId: follower.sessionId, cursor: follower.cursor, check: follower.check },
    );
    this.followers.add(stop);
    return stop;
  }

  /** Files claimed by running turns, in every process on the workspace's store, by path. */
  listFileClaims(): Promise<FileClaim[]> {
    return this.backend.fileClaims.list();
  }

  /**
   * Frees a file a running turn claimed: a person's call (the holder's next write to it claims it
   * again). `path` is workspace-relative. Throws `claim_not_found` when no live claim holds it.
   */
  async releaseFileClaim(path: string): Promise<FileClaim> {
    const claim = await this.backend.fileClaims.get(path);
    if (!claim || !(await this.backend.fileClaims.release(path))) {
      const held = (await this.backend.fileClaims.list()).map((each) => each.path);
      throw new LegionError(
        'claim_not_found',
        `No running turn claims ${path}${held.length > 0 ? `; claimed now: ${held.join(', ')}` : ': no file is claimed now'}.`,
        { path },
      );
    }
    return claim;
  }

  /** Stops background processes and MCP servers and closes open logs. */
  async close(): Promise<void> {
    for (const stop of [...this.followers]) stop();
    this.sessions.close();
    await this.backend.close();
    await Promise.all([this.processes.dispose(), this.disposeUnregisteredTools(), this.tools.dispose()]);
  }
}

/**
 * Config keys a running process wired once and does not take again: the MCP servers it started,
 * where sessions are stored, the environment of commands, telemetry, what `legion mcp serve`
 * serves, the message size the session store and the server check, the tools' output limit.
 */
const RESTART_KEYS = ['mcpServers', 'storage', 'shell', 'telemetry', 'mcpServe', 'limits.maxMessageBytes', 'context.artifactMaxBytes'];

/**
 * Core cannot load the PostgreSQL backend (it is a package above core): a workspace configured for
 * it that is opened without it would write its sessions to files nobody else reads. Refused instead.
 */
function refuseUnloadedBackend(config: ResolvedConfig, env: NodeJS.ProcessEnv): void {
  const selected = selectStorage(config.storage, env);
  if (selected.kind === 'files') return;
  throw new LegionError(
    'storage_backend_required',
    `This workspace's sessions are kept in PostgreSQL (${selected.source === 'config' ? '"storage" in the config' : 'LEGION_DATABASE_URL'}), which Legion.open does not load by itself: pass \`backend: new PostgresSessionBackend({ url })\` from @legion-collective/store-postgres (the legion command does), or unset ${selected.source === 'config' ? '"storage.kind"' : 'LEGION_DATABASE_URL'} to use the workspace's files.`,
    { source: selected.source },
  );
}
