import picomatch from 'picomatch';
import type { Permission } from './participant.js';

const matcherCache = new WeakMap<readonly string[], (name: string) => boolean>();

/** Whether a name passes an `all | none | [names or globs]` permission. */
export function permits(permission: Permission, name: string): boolean {
  if (permission === 'all') return true;
  if (permission === 'none') return false;
  return permissionMatcher(permission)(name);
}

/** One compiled matcher per list of names and globs, reused for every name checked against it. */
export function permissionMatcher(patterns: readonly string[]): (name: string) => boolean {
  let matcher = matcherCache.get(patterns);
  if (!matcher) {
    matcher = picomatch([...patterns], { nocase: false, dot: true });
    matcherCache.set(patterns, matcher);
  }
  return matcher;
}
