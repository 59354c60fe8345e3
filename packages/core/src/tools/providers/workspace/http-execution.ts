import type { ToolResult } from '../../tool.js';
import { bodyFormat, fillBodyTemplate } from './body-template.js';
import {
  argumentText,
  fillTemplate,
  quotedValue,
  resolvePlaceholder,
  templateParts,
  wholePlaceholder,
  type PlaceholderScope,
} from './placeholders.js';
import { sendHttp } from './send-http.js';
import { fillUrlTemplate } from './url-template.js';
import type { HttpExecution } from './workspace-tool-schema.js';

/** When neither the execution nor the tool says, a request may take this long. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

/** Error bodies are cut to this: enough to explain, not enough to flood. */
const ERROR_BODY_CHARS = 2000;

export interface HttpToolCall {
  toolName: string;
  execution: HttpExecution;
  scope: PlaceholderScope;
  signal: AbortSignal;
  toolTimeoutMs?: number | undefined;
}

/** Runs an `http` workspace tool: URL, headers and body filled in, one request, the response as the result. */
export async function executeHttp(call: HttpToolCall): Promise<ToolResult> {
  const { execution, scope, toolName } = call;
  const method = execution.method ?? 'GET';
  const filledUrl = fillUrlTemplate(execution.url, scope, toolName);
  if (!filledUrl.ok) return { status: 'error', error: filledUrl.error };
  const url = filledUrl.url;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { status: 'error', error: `${toolName}: only http and https URLs are allowed, not ${url.protocol}` };
  }
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(execution.headers ?? {})) {
    const filled = fillHeader(name, template, scope, toolName);
    if (!filled.ok) return { status: 'error', error: filled.error };
    headers[name] = filled.value;
  }
  let body: string | undefined;
  if (typeof execution.body === 'string') {
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    const filled = fillBodyTemplate(execution.body, scope, bodyFormat(execution.body, contentType), toolName);
    if (!filled.ok) return { status: 'error', error: filled.error };
    body = filled.body;
  } else if (execution.body !== undefined) {
    body = JSON.stringify(fillJson(execution.body, scope));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  const timeoutMs = execution.timeoutMs ?? call.toolTimeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const outcome = await sendHttp({ method, url, headers, body, signal: call.signal, timeoutMs });
  // The query string may carry tokens from variables; messages name the endpoint without it.
  const target = `${method} ${url.origin}${url.pathname}`;
  if (outcome.kind === 'failure') {
    if (outcome.stopped === 'timeout') return { status: 'error', error: `${toolName}: ${target} timed out after ${timeoutMs} ms.` };
    if (outcome.stopped === 'aborted') return { status: 'error', error: `${toolName}: ${target} was cancelled.` };
    return { status: 'error', error: `${toolName}: ${target} failed: ${outcome.problem}` };
  }
  const truncated =
    outcome.truncatedBytes > 0
      ? `\n… [response cut after ${outcome.body.length} characters; at least ${outcome.truncatedBytes} more bytes not read]`
      : '';
  const status = `HTTP ${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''}`;
  if (outcome.status >= 200 && outcome.status < 300)
    return { status: 'success', data: outcome.body ? `${outcome.body}${truncated}` : status };
  const excerpt = outcome.body.length > ERROR_BODY_CHARS ? `${outcome.body.slice(0, ERROR_BODY_CHARS)}…` : outcome.body;
  return { status: 'error', error: `${toolName}: ${target} answered ${status}${excerpt ? `: ${excerpt}` : ''}` };
}

/**
 * Fills the string leaves of a JSON body template. A leaf that is exactly one
 * argument placeholder keeps the argument's JSON type (numbers stay numbers);
 * a missing one is left out of objects and becomes null in arrays.
 */
export function fillJson(template: unknown, scope: PlaceholderScope): unknown {
  if (typeof template === 'string') {
    const whole = wholePlaceholder(template);
    if (whole === undefined) return fillTemplate(template, scope);
    const resolved = resolvePlaceholder(whole, scope);
    return resolved.source === 'missing' ? undefined : resolved.value;
  }
  if (Array.isArray(template)) return template.map((item) => fillJson(item, scope) ?? null);
  if (template !== null && typeof template === 'object') {
    const filled: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const result = fillJson(value, scope);
      if (result !== undefined) filled[key] = result;
    }
    return filled;
  }
  return template;
}

/** Control characters other than tab: CR and LF would start another header, the rest make the request invalid. */
const HEADER_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** A header's value, with the argument that would break it named (variables and env are checked as a whole). */
function fillHeader(
  name: string,
  template: string,
  scope: PlaceholderScope,
  toolName: string,
): { ok: true; value: string } | { ok: false; error: string } {
  let value = '';
  for (const part of templateParts(template, scope)) {
    if (part.kind === 'text') {
      value += part.text;
      continue;
    }
    const text = part.value === undefined ? '' : argumentText(part.value);
    if (HEADER_CONTROL.test(text)) {
      return {
        ok: false,
        error: `${toolName}: "${part.name}" is ${quotedValue(text)}, which contains a line break or another control character and would break the "${name}" header; nothing was sent. Give a value without control characters.`,
      };
    }
    value += text;
  }
  if (HEADER_CONTROL.test(value))
    return {
      ok: false,
      error: `${toolName}: the "${name}" header would contain a line break or another control character; nothing was sent.`,
    };
  return { ok: true, value };
}
