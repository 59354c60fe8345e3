import { argumentText, templateParts, type PlaceholderScope, type TemplatePart } from './placeholders.js';

export type FilledBody = { ok: true; body: string } | { ok: false; error: string };

/** How a string body template is read, from its content type: arguments are encoded for that format. */
export type BodyFormat = 'json' | 'form' | 'xml' | 'text';

/**
 * The format of a string body. A JSON content type, or none and a template
 * that is JSON once its placeholders are filled (it starts with `{` or `[`),
 * is JSON: `{"text":"${text}","role":"guest"}` must not take a second `role`
 * from a value.
 */
export function bodyFormat(template: string, contentType: string | undefined): BodyFormat {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (type === undefined) return /^\s*[[{]/.test(template) ? 'json' : 'text';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  return 'text';
}

/**
 * Fills a string body template, each argument encoded for where it sits:
 * - JSON: inside a string literal, JSON-escaped; as a bare value, the argument
 *   as JSON (a string becomes a JSON string, a missing one `null`), and the
 *   result must parse;
 * - form: percent-encoded, so `&` and `=` stay inside the value;
 * - XML: `&`, `<`, `>`, `"` and `'` as entities;
 * - text: as written (plain text has no structure to break out of).
 */
export function fillBodyTemplate(template: string, scope: PlaceholderScope, format: BodyFormat, toolName: string): FilledBody {
  const parts = templateParts(template, scope);
  if (format === 'json') return fillJsonText(parts, toolName);
  const encode = format === 'form' ? encodeURIComponent : format === 'xml' ? escapeXml : (text: string) => text;
  const body = parts
    .map((part) => (part.kind === 'text' ? part.text : part.value === undefined ? '' : encode(argumentText(part.value))))
    .join('');
  return { ok: true, body };
}

function fillJsonText(parts: readonly TemplatePart[], toolName: string): FilledBody {
  let body = '';
  // Whether the text so far ends inside a JSON string literal, and after a backslash in it.
  let inString = false;
  let escaped = false;
  for (const part of parts) {
    if (part.kind === 'argument') {
      // `"\${x}"`: the template's backslash would escape the value's first character, and a `"` there would end the string.
      if (escaped)
        return {
          ok: false,
          error: `${toolName}: the body template puts "\${${part.name}}" right after a backslash inside a JSON string; nothing was sent. Fix the tool file's "execution.body".`,
        };
      if (inString) body += part.value === undefined ? '' : JSON.stringify(argumentText(part.value)).slice(1, -1);
      else body += part.value === undefined ? 'null' : JSON.stringify(part.value);
      continue;
    }
    for (const character of part.text) {
      if (escaped) escaped = false;
      else if (inString && character === '\\') escaped = true;
      else if (character === '"') inString = !inString;
    }
    body += part.text;
  }
  try {
    JSON.parse(body);
  } catch (error) {
    return {
      ok: false,
      error: `${toolName}: the body template is not valid JSON once filled (${error instanceof Error ? error.message : String(error)}); nothing was sent. Fix the tool file's "execution.body", or give it a JSON object instead of a string.`,
    };
  }
  return { ok: true, body };
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
