import type { ToolResult } from '../../tool.js';
import { fillTemplate, resolvePlaceholder, wholePlaceholder, type PlaceholderScope } from './placeholders.js';
import { sendHttp } from './send-http.js';
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
  // Arguments are percent-encoded so a value cannot add path segments, a query or another host.
  const urlText = fillTemplate(execution.url, scope, encodeURIComponent);
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { status: 'error', error: `${toolName}: the URL template did not produce a valid URL (check its variables).` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { status: 'error', error: `${toolName}: only http and https URLs are allowed, not ${url.protocol}` };
  }
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(execution.headers ?? {})) {
    const value = fillTemplate(template, scope);
    if (/[\r\n]/.test(value)) return { status: 'error', error: `${toolName}: the "${name}" header would contain a line break; refused.` };
    headers[name] = value;
  }
  let body: string | undefined;
  if (typeof execution.body === 'string') {
    body = fillTemplate(execution.body, scope);
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
  const truncated = outcome.truncatedBytes > 0 ? `\n… [response cut after ${outcome.body.length} characters; at least ${outcome.truncatedBytes} more bytes not read]` : '';
  const status = `HTTP ${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''}`;
  if (outcome.status >= 200 && outcome.status < 300) return { status: 'success', data: outcome.body ? `${outcome.body}${truncated}` : status };
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
