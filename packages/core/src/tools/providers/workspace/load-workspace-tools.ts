import { readdirSync } from 'node:fs';
import { readRegularFileSync, readJsonFile } from '../../../store/index.js';
import { join } from 'node:path';
import { ConfigError, errorMessage } from '../../../kernel/index.js';
import { checkWorkspaceTool } from './workspace-tool-checks.js';
import { WorkspaceToolFileSchema } from './workspace-tool-schema.js';
import { createWorkspaceTool, type WorkspaceTool, type WorkspaceToolOptions } from './workspace-tool.js';

/** A tool file that could not be used, and why; the other files still load. */
export interface WorkspaceToolFileProblem {
  path: string;
  /** Dotted path in the file, or "" when the file as a whole is the problem (not JSON, unreadable). */
  field: string;
  /** Names the file, the field and the fix. */
  message: string;
}

export interface LoadedWorkspaceTools {
  tools: WorkspaceTool[];
  problems: WorkspaceToolFileProblem[];
}

type FileResult = { tool: WorkspaceTool } | { problem: WorkspaceToolFileProblem };

/** Parsed files by path, reused while their text is unchanged so a reload keeps the same Tool objects. */
export type WorkspaceToolCache = Map<string, { text: string; result: FileResult }>;

/**
 * Loads every `*.json` in the directory, in name order. A file that is not
 * JSON, fails the schema or the checks, or repeats an earlier file's tool name
 * becomes a problem; it never stops the others.
 */
export function loadWorkspaceTools(
  directory: string,
  options: Omit<WorkspaceToolOptions, 'file'>,
  cache: WorkspaceToolCache = new Map(),
): LoadedWorkspaceTools {
  let names: string[];
  try {
    names = readdirSync(directory)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { tools: [], problems: [] };
    return {
      tools: [],
      problems: [{ path: directory, field: '', message: `${directory}: could not list the tools directory (${errorMessage(error)})` }],
    };
  }
  const tools: WorkspaceTool[] = [];
  const problems: WorkspaceToolFileProblem[] = [];
  const owners = new Map<string, string>();
  const seen = new Set<string>();
  for (const name of names) {
    const path = join(directory, name);
    seen.add(path);
    const result = loadFile(path, options, cache);
    if (!result) continue;
    if ('problem' in result) {
      problems.push(result.problem);
      continue;
    }
    const owner = owners.get(result.tool.name);
    if (owner) {
      problems.push({
        path,
        field: 'name',
        message: `${path} (field "name"): "${result.tool.name}" is already defined by ${owner}. Fix: give one of the two tools another name`,
      });
      continue;
    }
    owners.set(result.tool.name, path);
    tools.push(result.tool);
  }
  for (const path of cache.keys()) if (!seen.has(path)) cache.delete(path);
  return { tools, problems };
}

/** One file; undefined when it vanished between listing and reading (an editor's rename). */
function loadFile(path: string, options: Omit<WorkspaceToolOptions, 'file'>, cache: WorkspaceToolCache): FileResult | undefined {
  let text: string;
  try {
    // A FIFO named x.json would otherwise block every start: refused, and reported as the file's problem.
    text = readRegularFileSync(path).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { problem: { path, field: '', message: `${path}: could not be read (${errorMessage(error)})` } };
  }
  const cached = cache.get(path);
  if (cached?.text === text) return cached.result;
  const result = parseFile(path, options);
  cache.set(path, { text, result });
  return result;
}

function parseFile(path: string, options: Omit<WorkspaceToolOptions, 'file'>): FileResult {
  try {
    const definition = readJsonFile(path, WorkspaceToolFileSchema, {
      what: 'workspace tool file (see packages/core/schemas/workspace-tool.schema.json)',
    });
    const problem = checkWorkspaceTool(definition);
    if (problem) return { problem: { path, field: problem.field, message: `${path} (field "${problem.field}"): ${problem.problem}` } };
    try {
      return { tool: createWorkspaceTool(definition, { ...options, file: path }) };
    } catch (error) {
      return { problem: { path, field: 'parameters', message: `${path} (field "parameters"): ${errorMessage(error)}` } };
    }
  } catch (error) {
    if (error instanceof ConfigError) return { problem: { path, field: error.field, message: error.message } };
    return { problem: { path, field: '', message: `${path}: ${errorMessage(error)}` } };
  }
}
