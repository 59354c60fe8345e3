import { argumentText, quotedValue, templateParts, type PlaceholderScope, type TemplatePart } from './placeholders.js';

export type FilledUrl = { ok: true; url: URL } | { ok: false; error: string };

type Region = 'origin' | 'path' | 'query' | 'fragment';

/** C0 controls, DEL and C1 controls: never part of a path segment a value means. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Fills a URL template so that every argument stays where the template put it.
 *
 * `encodeURIComponent` alone is not enough: it leaves `.` and `..` as they are,
 * and `new URL` resolves those segments, so `/repos/${owner}/${repo}` with `..`
 * values became `/` and the tool's Authorization header went there. Here:
 * - an argument in the scheme, host or port is refused (it would choose where
 *   the tool's headers go; a host belongs in a variable of the tool file);
 * - an argument in the path fills exactly one segment: empty values, `.`, `..`,
 *   `/`, `\`, control characters, and percent-encodings of those are refused;
 * - an argument in the query or fragment is percent-encoded as a value;
 * - the URL built is checked against the template's own shape (same origin,
 *   same number of path segments) before anything is sent.
 */
export function fillUrlTemplate(template: string, scope: PlaceholderScope, toolName: string): FilledUrl {
  const parts = templateParts(template, scope);
  let text = '';
  // The same URL with every argument replaced by a plain word: the shape the template means.
  let shape = '';
  let region: Region = 'origin';
  let segmentStart = 0;
  const segmentsToCheck: Array<{ start: number; names: string[] }> = [];
  for (const part of parts) {
    if (part.kind === 'text') {
      for (const character of part.text) {
        text += character;
        shape += character;
        const next = nextRegion(region, text);
        if (next !== region || (region === 'path' && character === '/')) segmentStart = text.length;
        region = next;
      }
      continue;
    }
    const filled = fillArgument(part, region, toolName);
    if (!filled.ok) return filled;
    if (region === 'path') {
      const open = segmentsToCheck.at(-1);
      if (open?.start === segmentStart) open.names.push(part.name);
      else segmentsToCheck.push({ start: segmentStart, names: [part.name] });
    }
    text += filled.text;
    shape += 'x';
  }
  for (const { start, names } of segmentsToCheck) {
    const segment = text.slice(start).split(/[/?#]/, 1)[0] ?? '';
    if (isDotSegment(decodeFully(segment))) {
      return {
        ok: false,
        error: `${toolName}: the path segment ${quotedValue(segment)} that "${names.join('" and "')}" fill${names.length === 1 ? 's' : ''} is a "." or ".." once percent-decoded, which a URL resolves to another path; nothing was sent. Give another value.`,
      };
    }
  }
  let url: URL;
  let meant: URL;
  try {
    url = new URL(text);
    meant = new URL(shape);
  } catch {
    return { ok: false, error: `${toolName}: the URL template did not produce a valid URL (check its variables).` };
  }
  if (url.origin !== meant.origin || segmentCount(url) !== segmentCount(meant)) {
    return {
      ok: false,
      error: `${toolName}: the arguments would change where the request goes (${meant.origin}${meant.pathname} by the template); nothing was sent.`,
    };
  }
  return { ok: true, url };
}

/** Where the next character of the URL falls, given the text so far (its last character just added). */
function nextRegion(region: Region, text: string): Region {
  const last = text.at(-1);
  if (region === 'origin') {
    const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(text);
    // Still in the scheme or authority until a "/", "?" or "#" ends it.
    if (!authority || authority[0].length === text.length) return 'origin';
    return last === '?' ? 'query' : last === '#' ? 'fragment' : 'path';
  }
  if (region === 'path') return last === '?' ? 'query' : last === '#' ? 'fragment' : 'path';
  if (region === 'query') return last === '#' ? 'fragment' : 'query';
  return 'fragment';
}

function fillArgument(
  part: Extract<TemplatePart, { kind: 'argument' }>,
  region: Region,
  toolName: string,
): { ok: true; text: string } | { ok: false; error: string } {
  const value = part.value === undefined ? undefined : argumentText(part.value);
  if (region === 'origin') {
    return {
      ok: false,
      error: `${toolName}: the argument "${part.name}" sits in the scheme, host or port of the URL template, where a value would choose where the tool's headers go; nothing was sent. Fix the tool file: put the host in a variable.`,
    };
  }
  if (region !== 'path') return { ok: true, text: encodeURIComponent(value ?? '') };
  if (value === undefined || value === '') return refuse(toolName, part.name, value ?? '', 'is empty');
  const decoded = decodeFully(value);
  if (isDotSegment(value) || isDotSegment(decoded))
    return refuse(
      toolName,
      part.name,
      value,
      `is a "." or ".." segment${value === decoded ? '' : ' once percent-decoded'}, which a URL resolves to another path`,
    );
  if (/[/\\]/.test(decoded))
    return refuse(
      toolName,
      part.name,
      value,
      `contains "/" or "\\"${/[/\\]/.test(value) ? '' : ' once percent-decoded'}, which would split it into several path segments`,
    );
  if (CONTROL.test(decoded)) return refuse(toolName, part.name, value, 'contains control characters');
  return { ok: true, text: encodeURIComponent(value) };
}

function refuse(toolName: string, name: string, value: string, problem: string): { ok: false; error: string } {
  return {
    ok: false,
    error:
      `${toolName}: "${name}" is ${quotedValue(value)}, which ${problem}; nothing was sent. ` +
      `A value in the URL path fills exactly one segment: give a non-empty value without "/", "\\" or control characters that is not "." or "..".`,
  };
}

function isDotSegment(segment: string): boolean {
  return segment === '.' || segment === '..';
}

/**
 * Percent-decodes until nothing changes (at most a few rounds), byte by byte
 * so that malformed sequences cannot stop it: a server or proxy that decodes
 * once more must not find a "..", "/" or "\" the check did not see.
 */
function decodeFully(text: string): string {
  let current = text;
  for (let round = 0; round < 4; round++) {
    const next = current.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function segmentCount(url: URL): number {
  return url.pathname.split('/').length;
}
