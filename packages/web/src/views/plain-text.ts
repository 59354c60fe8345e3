import { marked, type Token } from 'marked';

/**
 * Markdown as the words a reader sees, for a one-line quote: `**database**` is "database", a link
 * its text, a code span its code. Parsed by marked, as the message itself is drawn.
 */
export function plainText(markdown: string): string {
  return words(marked.lexer(markdown, { gfm: true }), ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Blocks and list items are apart (`between` a space); a block's inline tokens carry their own spaces. */
function words(tokens: readonly Token[], between: string): string {
  return tokens
    .map((token) => {
      if (token.type === 'list') return words((token.items as Token[]) ?? [], ' ');
      const nested = 'tokens' in token && Array.isArray(token.tokens) ? (token.tokens as Token[]) : null;
      if (nested && nested.length > 0) return words(nested, '');
      return 'text' in token && typeof token.text === 'string' ? token.text : '';
    })
    .join(between);
}
