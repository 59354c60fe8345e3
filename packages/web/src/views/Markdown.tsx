import { marked, type Token, type Tokens } from 'marked';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { pure } from './pure.js';
import { safeHref } from './safe-href.js';
import { visibleText } from './visible-text.js';

/**
 * Markdown from a model, drawn as Preact elements from `marked`'s tokens: no HTML string is made
 * and none reaches the DOM. Raw HTML in the text (`<script>`, `<img onerror>`) is shown as the
 * text it is; every text goes through `visibleText` (bidi overrides and invisible characters made
 * visible); a link is a link only to http, https or mailto, opened without an opener or referrer;
 * an image is a link to it (loading what a model names would tell its server you read the reply).
 * Code blocks are highlighted by lowlight, which also gives a tree, not HTML; it is loaded the
 * first time a block names a language (its own chunk, ~24 KB gzipped), so the first paint of the
 * app does not wait for it.
 */
export const Markdown = pure(function Markdown({ text, testId }: { text: string; testId?: string }) {
  // Pure: a conversation drawn again (a participant's state changed, a message came) parses only the new text.
  return (
    <div class="text markdown" data-testid={testId}>
      {blocks(marked.lexer(text, { gfm: true }))}
    </div>
  );
});

function blocks(tokens: readonly Token[]): ComponentChildren {
  return tokens.map((token, index) => block(token, index));
}

function block(token: Token, key: number): ComponentChildren {
  const typed = token as Tokens.Generic;
  switch (typed.type) {
    case 'space':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      // Headings of a reply sit under the conversation's own: h3 at most, so the page's outline stays the app's.
      const Tag = (['h3', 'h4', 'h5', 'h6', 'h6', 'h6'] as const)[heading.depth - 1] ?? 'h6';
      return <Tag key={key}>{inlines(heading.tokens)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inlines((token as Tokens.Paragraph).tokens)}</p>;
    case 'text': {
      const text = token as Tokens.Text;
      return <span key={key}>{text.tokens ? inlines(text.tokens) : visibleText(text.text)}</span>;
    }
    case 'code': {
      const code = token as Tokens.Code;
      const language = (code.lang ?? '').split(/\s/)[0] ?? '';
      return <CodeBlock key={key} code={code.text} language={language} />;
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, index) => (
        <li key={index}>
          {item.task && <input type="checkbox" checked={item.checked === true} disabled aria-label={item.checked ? 'done' : 'not done'} />}
          {blocks(item.tokens)}
        </li>
      ));
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' && list.start !== 1 ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const table = token as Tokens.Table;
      const align = (index: number) => table.align[index] ?? undefined;
      return (
        // A wide table scrolls in its own box: the page never does.
        <div key={key} class="table-scroll">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, index) => (
                  <th key={index} style={align(index) ? { textAlign: align(index)! } : undefined}>
                    {inlines(cell.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, index) => (
                    <td key={index} style={align(index) ? { textAlign: align(index)! } : undefined}>
                      {inlines(cell.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'hr':
      return <hr key={key} />;
    case 'html':
      // Raw HTML stays text: shown as written, never parsed.
      return (
        <p key={key} class="raw-html">
          {visibleText((token as Tokens.HTML).text.trimEnd())}
        </p>
      );
    default:
      return 'tokens' in typed && Array.isArray(typed.tokens) ? (
        <span key={key}>{inlines(typed.tokens as Token[])}</span>
      ) : (
        <span key={key}>{visibleText(typed.raw)}</span>
      );
  }
}

function inlines(tokens: readonly Token[] | undefined): ComponentChildren {
  return (tokens ?? []).map((token, index) => inline(token, index));
}

function inline(token: Token, key: number): ComponentChildren {
  const typed = token as Tokens.Generic;
  switch (typed.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? <span key={key}>{inlines(text.tokens)}</span> : visibleText(text.text);
    }
    case 'escape':
      return visibleText((token as Tokens.Escape).text);
    case 'strong':
      return <strong key={key}>{inlines((token as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em key={key}>{inlines((token as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del key={key}>{inlines((token as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code key={key}>{visibleText((token as Tokens.Codespan).text)}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const link = token as Tokens.Link;
      const href = safeHref(link.href);
      // A link to anywhere else keeps its text, and says where it pointed.
      if (href === null)
        return (
          <span key={key} class="unsafe-link" title={visibleText(`not a link: ${link.href}`)}>
            {inlines(link.tokens)}
          </span>
        );
      return (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer" title={link.title ? visibleText(link.title) : undefined}>
          {inlines(link.tokens)}
        </a>
      );
    }
    case 'image': {
      const image = token as Tokens.Image;
      const href = safeHref(image.href);
      const label = visibleText(`image: ${image.text || image.href}`);
      return href === null ? (
        <span key={key}>{label}</span>
      ) : (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer">
          {label}
        </a>
      );
    }
    case 'html':
      return visibleText((token as Tokens.HTML).text);
    default:
      return visibleText(typed.raw);
  }
}

type Highlighter = typeof import('./highlight.js');
let highlighter: Highlighter | undefined;
let loading: Promise<Highlighter> | undefined;

/** A code block: plain at once, highlighted once the highlighter is loaded (every block after the first at once). */
function CodeBlock({ code, language }: { code: string; language: string }) {
  const [loaded, setLoaded] = useState(highlighter);
  useEffect(() => {
    if (loaded !== undefined || language === '') return;
    let current = true;
    loading ??= import('./highlight.js');
    loading.then(
      (module) => {
        highlighter = module;
        if (current) setLoaded(module);
      },
      // Not loaded (the server went away mid-load): the block stays plain, which is all it loses.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [language, loaded]);
  return (
    <pre class="code" data-language={language || undefined}>
      <code>{loaded !== undefined && language !== '' ? loaded.highlighted(code, language) : visibleText(code)}</code>
    </pre>
  );
}
