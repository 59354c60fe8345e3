import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/**
 * `@path` in a message names a workspace file: the agent is told, in a line it
 * can act on, to read it with its file tool (the content is not pasted in, so
 * the agent's read policy still applies).
 */
export function withFileReferences(text: string, root: string): string {
  const paths = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@("([^"]+)"|(\S+))/g)) {
    const path = (match[2] ?? match[3] ?? '').replace(/[.,;:!?)]+$/, '');
    const absolute = resolve(root, path);
    const inside = relative(root, absolute);
    if (!path || inside.startsWith('..') || !existsSync(absolute)) continue;
    paths.add(statSync(absolute).isDirectory() ? `${inside}/` : inside);
  }
  if (paths.size === 0) return text;
  return `${text}\n\n(Referenced workspace files: ${[...paths].join(', ')} — read them with your file tools.)`;
}
