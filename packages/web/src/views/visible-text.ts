/**
 * Text from a model, a tool or a file, with what would not be seen as it is made visible: controls
 * (a CR in a <pre> reads as a line break or a space), bidi overrides and isolates (which reorder what
 * is shown: `\u202Egnp.exe` reads as `exe.png`), zero-width and other format characters. New lines
 * and tabs stay layout. The CLI's terminal writers (packages/cli/src/render/terminal-text.ts) use the
 * same classes of characters; visible-text.test.ts holds the two to the same answers. The browser
 * app cannot import it (it speaks only the server's wire types), so it has this copy.
 */
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]|[\u{e0000}-\u{e007f}]/gu;

export function visibleText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(HIDDEN, (character) => {
    if (character === '\r') return '␍';
    const code = character.codePointAt(0)!;
    if (code <= 0x9f) return `\\x${code.toString(16).padStart(2, '0')}`;
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
