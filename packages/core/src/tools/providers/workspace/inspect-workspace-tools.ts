import { loadWorkspaceTools } from './load-workspace-tools.js';

/** The `.legion/tools/*.json` files as a workspace would load them: the tools they define and the files that could not be used. */
export interface WorkspaceToolsReport {
  tools: Array<{ name: string; file: string }>;
  /** Each names its file, the field and the fix. */
  problems: Array<{ file: string; field: string; message: string }>;
}

/** Loads the tool files of `directory` once, without watching it or registering anything: what `legion doctor` checks. */
export function inspectWorkspaceTools(
  directory: string,
  options: { workspaceRoot: string; env?: NodeJS.ProcessEnv },
): WorkspaceToolsReport {
  const loaded = loadWorkspaceTools(directory, { workspaceRoot: options.workspaceRoot, env: options.env ?? process.env });
  return {
    tools: loaded.tools.map((tool) => ({ name: tool.name, file: tool.file })),
    problems: loaded.problems.map((problem) => ({ file: problem.path, field: problem.field, message: problem.message })),
  };
}
