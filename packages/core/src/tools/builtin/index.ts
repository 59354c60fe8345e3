import type { Tool } from '../tool.js';
import { decisionReach } from '../../team/index.js';
import type { ToolProvider } from '../providers/tool-provider.js';
import type { ToolRegistry } from '../ToolRegistry.js';
import type { CollectiveToolsOptions } from './collective/collective-tool-options.js';
import { createArtifactReadTool } from './artifacts/artifact-read.js';
import { createCollectiveTools } from './collective/collective-tools.js';
import { createFileDeleteTool } from './files/file-delete.js';
import { createFileEditTool } from './files/file-edit.js';
import { createFileGlobTool } from './files/file-glob.js';
import { createFileGrepTool } from './files/file-grep.js';
import { createFileListTool } from './files/file-list.js';
import { createFileReadTool } from './files/file-read.js';
import { createFileWriteTool } from './files/file-write.js';
import { createListParticipantsTool } from './list-participants.js';
import { createTodoTools } from './planning/todo-tools.js';
import { withBuiltinParameters } from './builtin-parameters.js';
import { createScratchbookTools } from './scratchbook/scratchbook-tools.js';
import { createProcessTools } from './shell/process-tools.js';
import { ProcessRegistry, type ProcessRegistryOptions } from './shell/ProcessRegistry.js';
import { createShellRunTool } from './shell/shell-run.js';

export type { CollectiveToolsOptions, SessionDirectory } from './collective/collective-tool-options.js';
export { ProcessRegistry } from './shell/ProcessRegistry.js';
export { withBuiltinParameters } from './builtin-parameters.js';
export type { BackgroundProcess, ProcessRegistryOptions, ProcessStatus } from './shell/ProcessRegistry.js';

/**
 * The built-in families and the tools in each. A family is switched on or off
 * per agent through its `tools` permission, with these names or globs
 * (`file_*`, `scratch_*`, `todo_*`, `process_*`, `artifact_*`).
 */
export const BUILTIN_TOOL_FAMILIES = {
  files: ['file_read', 'file_write', 'file_edit', 'file_list', 'file_delete', 'file_glob', 'file_grep'],
  shell: ['shell_run', 'process_start', 'process_poll', 'process_stop', 'process_list'],
  planning: ['todo_write', 'todo_read'],
  scratchbook: ['scratch_add', 'scratch_read', 'scratch_update', 'scratch_complete', 'scratch_pin', 'scratch_unpin'],
  /** Reading back large tool results the context evicted to the session's artifacts. */
  artifacts: ['artifact_read'],
  collective: [
    'list_participants',
    'get_participant',
    'create_agent',
    'modify_agent',
    'retire_agent',
    'list_tools',
    'list_sessions',
    'list_conversations',
    'search_history',
  ],
} as const satisfies Record<string, readonly string[]>;
export type BuiltinFamily = keyof typeof BUILTIN_TOOL_FAMILIES;

export const BUILTIN_PROVIDER_ID = 'builtin';

function familyOf(name: string): BuiltinFamily | undefined {
  return (Object.keys(BUILTIN_TOOL_FAMILIES) as BuiltinFamily[]).find((family) =>
    (BUILTIN_TOOL_FAMILIES[family] as readonly string[]).includes(name),
  );
}

export interface BuiltinToolsOptions extends CollectiveToolsOptions, ProcessRegistryOptions {
  /** Families to create (default: all). */
  families?: readonly BuiltinFamily[];
  /** Background processes live here; one is created (and disposed with the tools) if not given. */
  processes?: ProcessRegistry;
}

export interface BuiltinTools {
  tools: Tool[];
  processes: ProcessRegistry;
  /** Kills the background processes (only those of a registry created here). */
  dispose(): Promise<void>;
}

/** The built-in tools, ready to register; `dispose()` when done, or background processes keep running. */
export function createBuiltinTools(options: BuiltinToolsOptions): BuiltinTools {
  const families = new Set<BuiltinFamily>(options.families ?? (Object.keys(BUILTIN_TOOL_FAMILIES) as BuiltinFamily[]));
  const ownsProcesses = !options.processes;
  const processes = options.processes ?? new ProcessRegistry(options);
  const tools: Tool[] = [];
  if (families.has('files')) {
    tools.push(
      createFileReadTool({ maxBytes: options.outputLimitBytes }),
      createFileWriteTool(),
      createFileEditTool(),
      createFileListTool(),
      createFileDeleteTool(),
      createFileGlobTool(),
      createFileGrepTool(),
    );
  }
  if (families.has('shell')) {
    const { collective } = options;
    // The human (a user of the roster who stands in for nobody) sees every process; an agent or an MCP client its own.
    const seesAll = (id: string): boolean => {
      const participant = collective.get(id);
      return participant !== undefined && decisionReach(participant, (candidate) => collective.isCaller(candidate)) === 'any';
    };
    tools.push(createShellRunTool(options), ...createProcessTools(processes, { seesAll }));
  }
  if (families.has('planning')) tools.push(...createTodoTools());
  if (families.has('scratchbook')) tools.push(...createScratchbookTools());
  if (families.has('artifacts')) tools.push(createArtifactReadTool());
  if (families.has('collective')) {
    tools.push(createListParticipantsTool(options.collective), ...createCollectiveTools(options));
  }
  for (const tool of tools) tool.family ??= familyOf(tool.name);
  return { tools: tools.map(withBuiltinParameters), processes, dispose: () => (ownsProcesses ? processes.dispose() : Promise.resolve()) };
}

/** The built-in tools as the registry's `builtin` provider; disposing it kills the background processes. */
export function createBuiltinToolProvider(options: BuiltinToolsOptions): ToolProvider & { readonly processes: ProcessRegistry } {
  const builtin = createBuiltinTools(options);
  return {
    id: BUILTIN_PROVIDER_ID,
    processes: builtin.processes,
    getTools: () => builtin.tools,
    dispose: () => builtin.dispose(),
  };
}

/**
 * Registers the built-in families on a registry. The returned function
 * removes them and kills the background processes they started.
 */
export function registerBuiltinTools(
  registry: ToolRegistry,
  options: BuiltinToolsOptions,
): { processes: ProcessRegistry; dispose: () => Promise<void> } {
  const provider = createBuiltinToolProvider(options);
  const dispose = registry.registerToolProvider(provider);
  return { processes: provider.processes, dispose };
}
