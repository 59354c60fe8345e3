/**
 * Credentials recognisable by their shape alone, so that a key nobody told
 * Legion about (printed by `cat ~/.aws/credentials`, a `.env` file, a log) is
 * still hidden. Each pattern is anchored so that it does not fire inside a
 * longer word (`task-…` is not `sk-…`).
 */
interface KeyShape {
  name: string;
  whole: RegExp;
  /** The start of such a key running to the end of the text: what is left of one on the near side of a cut. */
  start: RegExp;
}

const KEY_SHAPES: readonly KeyShape[] = [
  { name: 'anthropic-api-key', whole: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g, start: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]*$/ },
  { name: 'openai-api-key', whole: /(?<![A-Za-z0-9_-])sk-(?:proj-)?[A-Za-z0-9_-]{20,}/g, start: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{4,}$/ },
  { name: 'github-token', whole: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}/g, start: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{4,}$/ },
  { name: 'github-token', whole: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/g, start: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]*$/ },
  {
    name: 'aws-access-key-id',
    whole: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])/g,
    start: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{4,15}$/,
  },
  {
    name: 'slack-token',
    whole: /(?<![A-Za-z0-9_-])xox[baprs]-[A-Za-z0-9-]{10,}/g,
    start: /(?<![A-Za-z0-9_-])xox[baprs]-[A-Za-z0-9-]{4,}$/,
  },
];

/** A literal every `whole` shape above contains: a text without one holds no key of those shapes. */
const ANY_SHAPE_START = /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[baprs]-/;

const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g;
const PRIVATE_KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g;
/** A line of a PEM body: base64, or a header such as `Proc-Type: 4,ENCRYPTED`. */
const PEM_BODY_LINE = /^(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: .*)\r?$/;
const PRIVATE_KEY_LABEL = '[redacted:private-key]';

/** Replaces every key of a well-known shape with `[redacted:<kind>]`. */
export function redactKeyShapes(text: string): string {
  let result = text;
  // Every tool result passes here: one scan for what each shape starts with, instead of six with lookbehinds, when none is there.
  if (ANY_SHAPE_START.test(result)) for (const shape of KEY_SHAPES) result = result.replace(shape.whole, `[redacted:${shape.name}]`);
  return result.includes('PRIVATE KEY') ? redactPrivateKeys(result) : result;
}

/**
 * `scheme://user:password@host` → `scheme://user:[redacted]@host`. The
 * password runs to the last `@` of the authority, so one with an unencoded
 * `@` in it is hidden whole.
 */
export function redactUrlPasswords(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(
    // One start per scheme-like word, of bounded length: a long "a.a.a.…" must not be tried from every letter (quadratic).
    /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:/?#@"'<>`]*):(?!\[redacted)([^\s/?#@"'<>`]+(?:@[^\s/?#@"'<>`]+)*)@(?=[^\s@/?#"'<>`])/g,
    '$1:[redacted]@',
  );
}

/** Where a key of a known shape starts, if one runs to the end of `text`. */
export function trailingKeyShapeStart(text: string): { index: number; name: string } | undefined {
  for (const shape of KEY_SHAPES) {
    const match = shape.start.exec(text);
    if (match) return { index: match.index, name: shape.name };
  }
  return undefined;
}

/**
 * PEM private-key blocks, whole. A block whose end is missing (its output was
 * cut) is hidden to the end of the text; an end whose beginning is missing is
 * hidden with the key lines above it.
 */
function redactPrivateKeys(text: string): string {
  let result = '';
  let position = 0;
  for (const begin of text.matchAll(PRIVATE_KEY_BEGIN)) {
    if (begin.index < position) continue;
    PRIVATE_KEY_END.lastIndex = begin.index + begin[0].length;
    const end = PRIVATE_KEY_END.exec(text);
    result += text.slice(position, begin.index) + PRIVATE_KEY_LABEL;
    position = end ? end.index + end[0].length : text.length;
  }
  result += text.slice(position);
  return result.includes('-----END') ? redactOrphanEnds(result) : result;
}

/** An END line with no BEGIN before it: the key lines just above it are the rest of a key. */
function redactOrphanEnds(text: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    PRIVATE_KEY_END.lastIndex = 0;
    const end = PRIVATE_KEY_END.exec(line);
    if (!end) {
      kept.push(line);
      continue;
    }
    while (kept.length > 0 && kept[kept.length - 1] !== '' && PEM_BODY_LINE.test(kept[kept.length - 1]!)) kept.pop();
    kept.push(PRIVATE_KEY_LABEL + line.slice(end.index + end[0].length));
  }
  return kept.join('\n');
}
