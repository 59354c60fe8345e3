import picomatch from 'picomatch';
import type { Permission } from '../collective/participant.js';
import { LegionError } from '../errors.js';
import type { Tool } from './tool.js';

/** All tools Legion knows, and which of them a participant may see. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** Adds a tool; the returned function removes it again. */
  register(tool: Tool): () => void {
    if (this.tools.has(tool.name)) {
      throw new LegionError('duplicate_tool', `A tool named "${tool.name}" is already registered.`, { name: tool.name });
    }
    this.tools.set(tool.name, tool);
    return () => {
      if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
    };
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** The tools a permission lets through: `all`, `none`, or names and globs (`file_*`). */
  allowedBy(permission: Permission): Tool[] {
    if (permission === 'all') return this.list();
    if (permission === 'none') return [];
    const matches = permissionMatcher(permission);
    return this.list().filter((tool) => matches(tool.name));
  }
}

const matcherCache = new WeakMap<readonly string[], (name: string) => boolean>();

/** Whether a name passes an `all | none | [names or globs]` permission. */
export function permits(permission: Permission, name: string): boolean {
  if (permission === 'all') return true;
  if (permission === 'none') return false;
  return permissionMatcher(permission)(name);
}

function permissionMatcher(patterns: readonly string[]): (name: string) => boolean {
  let matcher = matcherCache.get(patterns);
  if (!matcher) {
    matcher = picomatch([...patterns], { nocase: false, dot: true });
    matcherCache.set(patterns, matcher);
  }
  return matcher;
}
