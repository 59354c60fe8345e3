import { existsSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { EventBus } from '../../../kernel/index.js';
import type { ToolProvider } from '../tool-provider.js';
import { loadWorkspaceTools, type WorkspaceToolCache, type WorkspaceToolFileProblem } from './load-workspace-tools.js';
import type { WorkspaceTool } from './workspace-tool.js';
import type { SandboxSettings } from '../../child-processes/sandbox.js';

export interface WorkspaceToolProviderOptions {
  /** The tools directory, normally `WorkspacePaths.toolsDir` (`.legion/tools`). */
  directory: string;
  /** Where commands run (`execution.cwd` is relative to it). */
  workspaceRoot: string;
  /** Broken files are reported here as `storage:warning`. */
  events?: EventBus | undefined;
  /** Source of `${env:NAME}`; defaults to process.env. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Environment shell tools' commands run with; defaults to `env` without Legion's keys (`commandEnvironment`). */
  commandEnv?: NodeJS.ProcessEnv | undefined;
  /** The sandbox settings shell tools' commands run with, read at each call (default: `DEFAULT_SANDBOX_SETTINGS`). */
  sandbox?: (() => SandboxSettings) | undefined;
  /** Follow file changes (default true). */
  watch?: boolean | undefined;
  /** Quiet time after the last change before reloading, so an editor's save-rename-save lands as one reload. */
  debounceMs?: number | undefined;
}

export const WORKSPACE_TOOL_PROVIDER_ID = 'workspace';

/**
 * Tools declared in `.legion/tools/*.json`. Loads on first `getTools()`, then
 * watches the directory (or, while it does not exist, its parent) and reloads
 * when files change. A broken file is listed in `problems` and reported as a
 * `storage:warning` naming the file and the schema error; the rest keep working.
 */
export class WorkspaceToolProvider implements ToolProvider {
  readonly id = WORKSPACE_TOOL_PROVIDER_ID;
  private tools: WorkspaceTool[] | undefined;
  private currentProblems: WorkspaceToolFileProblem[] = [];
  private readonly cache: WorkspaceToolCache = new Map();
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;
  private watchedPath: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: WorkspaceToolProviderOptions) {
    this.env = options.env ?? process.env;
  }

  getTools(): WorkspaceTool[] {
    if (!this.tools) this.reload();
    return this.tools ?? [];
  }

  /** Files that could not be turned into tools, from the latest load. */
  get problems(): readonly WorkspaceToolFileProblem[] {
    return this.currentProblems;
  }

  onDidChangeTools(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the directory again now; tells listeners if the set of tools changed. */
  reload(): void {
    if (this.disposed) return;
    const previous = this.tools;
    const loaded = loadWorkspaceTools(
      this.options.directory,
      { workspaceRoot: this.options.workspaceRoot, env: this.env, commandEnv: this.options.commandEnv, sandbox: this.options.sandbox },
      this.cache,
    );
    this.tools = loaded.tools;
    this.reportNewProblems(loaded.problems);
    this.follow();
    if (previous && !sameTools(previous, loaded.tools)) for (const listener of [...this.listeners]) listener();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
    this.listeners.clear();
  }

  /** Reports each broken file once per distinct error, not on every reload. */
  private reportNewProblems(problems: WorkspaceToolFileProblem[]): void {
    const known = new Set(this.currentProblems.map((problem) => problem.message));
    this.currentProblems = problems;
    for (const problem of problems) {
      if (known.has(problem.message)) continue;
      // The message names its file for readers of the error alone; the event carries the path apart.
      const text = problem.message.startsWith(`${problem.path}: `) ? problem.message.slice(problem.path.length + 2) : problem.message;
      this.options.events?.emit('storage:warning', { path: problem.path, offset: 0, problem: text });
    }
  }

  /** Watches the directory if it exists, else its parent until it does. */
  private follow(): void {
    if (this.disposed || this.options.watch === false) return;
    const target = existsSync(this.options.directory) ? this.options.directory : dirname(this.options.directory);
    if (this.watcher && this.watchedPath === target) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedPath = undefined;
    try {
      // Not persistent: watching tool files must not keep a finished process alive.
      const watcher = watch(target, { persistent: false }, () => this.schedule());
      watcher.on('error', () => {
        // The watched directory went away (renamed, deleted): look again after a pause.
        watcher.close();
        if (this.watcher === watcher) this.watcher = undefined;
        this.schedule();
      });
      this.watcher = watcher;
      this.watchedPath = target;
    } catch {
      // Neither the directory nor its parent exists: nothing can change until a manual reload.
    }
  }

  private schedule(): void {
    if (this.disposed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.reload(), this.options.debounceMs ?? 100);
    this.timer.unref();
  }
}

export function createWorkspaceToolProvider(options: WorkspaceToolProviderOptions): WorkspaceToolProvider {
  return new WorkspaceToolProvider(options);
}

function sameTools(a: readonly WorkspaceTool[], b: readonly WorkspaceTool[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index]);
}
