/** What a rule made from an approval answer will hold, or why none can be made. */
export type RulePatternOutcome = { ok: true; pattern?: string | undefined } | { ok: false; error: string };

/**
 * The text of one simple command that a rule's pattern is matched against:
 * its words, each quoted for a POSIX shell where it needs to be, so that word
 * boundaries survive (`echo 'a b'` is not `echo a b`) and the text reads like
 * the command a person would type.
 */
export function commandText(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Whether a command glob matches a whole command text: `*` stands for any
 * text (spaces and `/` included), `?` for one character, `\` makes the next
 * character literal; everything else is itself. Anchored at both ends, so
 * `git status*` is a prefix and `git status` is exact.
 */
export function commandGlobMatches(pattern: string, text: string): boolean {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!;
    if (character === '\\' && index + 1 < pattern.length) source += escapeRegExp(pattern[++index]!);
    else if (character === '*') source += '[\\s\\S]*';
    else if (character === '?') source += '[\\s\\S]';
    else source += escapeRegExp(character);
  }
  return new RegExp(`^${source}$`).test(text);
}

/** A command glob that matches exactly this text. */
export function exactCommandGlob(text: string): string {
  return text.replace(/[\\*?]/g, '\\$&');
}

/** A path glob (picomatch) that matches exactly this path. */
export function exactPathGlob(path: string): string {
  return path.replace(/[\\*?[\](){}!+@|]/g, '\\$&');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
