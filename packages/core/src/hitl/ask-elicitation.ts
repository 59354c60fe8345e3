import type { Collective, Participant } from '../team/index.js';
import { waitingParticipants } from '../session/index.js';
import {
  checkElicitationContent,
  type ElicitationField,
  type ElicitationForm,
  type ElicitationValue,
  type McpElicitation,
  type McpElicitationAnswer,
} from '../tools/index.js';
import type { UserSurfaces } from './UserSurfaces.js';

/** How many answers that do not fit the form the user may give before the request is cancelled. */
const ATTEMPTS = 3;

/**
 * An MCP server's `elicitation/create` put to the human through the attached
 * user surfaces, as a question every surface already answers (the REPL, the
 * browser, `legion run --answer-questions text`): the question names the
 * server and the agent whose tool call it interrupts, lists the fields, and
 * says how to answer; the answer is read back into the form's values and
 * checked against it (asked again, up to three times, when it does not fit).
 * With no surface that answers questions the request is declined, with the reason.
 */
export async function askElicitation(
  surfaces: UserSurfaces,
  collective: Collective,
  request: McpElicitation,
  signal: AbortSignal,
): Promise<McpElicitationAnswer> {
  const call = request.calls[0];
  if (!call)
    return {
      action: 'decline',
      reason: `MCP server "${request.server}" asked the user while none of its tool calls was running; Legion answers elicitations only during a tool call.`,
    };
  if (!surfaces.can('ask'))
    return { action: 'decline', reason: 'No user surface that answers questions is attached (a headless run): nobody can answer now.' };
  const { context } = call;
  const chain = [...waitingParticipants(context.frames), context.callerId];
  const user = userFor(collective, chain);
  if (!user) return { action: 'decline', reason: 'The collective has no user participant to ask.' };
  let problem = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const text = `${problem ? `That answer does not fit the form: ${problem}. Please answer again.\n\n` : ''}${questionText(request)}`;
    const outcome = await surfaces.ask({ user, from: context.callerId, text, chain, conversation: context.conversation }, signal);
    if (outcome.status === 'unanswered') {
      const failed = outcome.failures.map((failure) => `${failure.medium}: ${failure.error}`).join('; ');
      return { action: 'decline', reason: `No user surface could answer${failed ? ` (${failed})` : ''}.` };
    }
    const answer = readAnswer(request, outcome.value);
    if ('action' in answer) return answer;
    problem = answer.problems.join('; ');
  }
  return { action: 'cancel', reason: `The user gave ${ATTEMPTS} answers that do not fit the form (the last: ${problem}).` };
}

/** The user whose chain it is (the outermost user waiting), else the collective's default user. */
function userFor(collective: Collective, chain: readonly string[]): Participant | undefined {
  for (const id of chain) {
    const participant = collective.get(id);
    if (participant?.type === 'user') return participant;
  }
  return collective.defaultUser();
}

function questionText(request: McpElicitation): string {
  const calls = request.calls.map((call) => `${call.context.callerId} (${call.tool})`).join(', ');
  const head = `MCP server "${request.server}" asks you, during a tool call by ${calls}:\n${request.message}`;
  if (request.mode === 'url') {
    const host = new URL(request.url).host;
    return `${head}\n\nIt asks you to open this page (on ${host}) and finish there:\n${request.url}\n\nAnswer "done" once finished, "decline" to refuse, or "cancel".`;
  }
  const { fields, required } = request.form;
  const lines = fields.map(
    (field) => `- ${field.name} (${describeField(field)}${required.includes(field.name) ? ', required' : ''})${label(field)}`,
  );
  const only = bareField(request.form);
  const how =
    fields.length === 1
      ? `Answer with the value${fields[0]!.kind === 'choices' ? 's, separated by commas' : ''}`
      : `Answer with one line per field, "name: value" (lists separated by commas), or a JSON object${only ? `; a single value answers ${only.name}` : ''}`;
  return `${head}\n\n${lines.join('\n')}\n\n${how}; "decline" to refuse, or "cancel".`;
}

function label(field: ElicitationField): string {
  const text = [field.title, field.description].filter((part) => part !== undefined && part !== '').join(' — ');
  return text ? `: ${text}` : '';
}

function describeField(field: ElicitationField): string {
  const parts: string[] = [];
  switch (field.kind) {
    case 'string':
      parts.push(field.format ? `text, ${field.format}` : 'text');
      if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
      if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
      break;
    case 'choice':
      parts.push(`one of ${choices(field.options)}`);
      break;
    case 'choices':
      parts.push(`any of ${choices(field.options)}`);
      if (field.minItems !== undefined) parts.push(`at least ${field.minItems}`);
      if (field.maxItems !== undefined) parts.push(`at most ${field.maxItems}`);
      break;
    case 'number':
    case 'integer':
      parts.push(field.kind === 'integer' ? 'whole number' : 'number');
      if (field.minimum !== undefined) parts.push(`from ${field.minimum}`);
      if (field.maximum !== undefined) parts.push(`to ${field.maximum}`);
      break;
    case 'boolean':
      parts.push('yes or no');
      break;
  }
  if (field.default !== undefined) parts.push(`default ${Array.isArray(field.default) ? field.default.join(', ') : String(field.default)}`);
  return parts.join(', ');
}

const choices = (options: ReadonlyArray<{ value: string; label?: string | undefined }>) =>
  options.map((choice) => (choice.label ? `${choice.value} (${choice.label})` : choice.value)).join(', ');

/** The user's text as the server's answer, or what does not fit. */
function readAnswer(request: McpElicitation, text: string): McpElicitationAnswer | { problems: string[] } {
  const word = text.trim().toLowerCase();
  // The user's own decision: no reason to give.
  if (word === 'decline') return { action: 'decline' };
  if (word === 'cancel') return { action: 'cancel' };
  if (request.mode === 'url') {
    return ['done', 'accept', 'yes', 'ok'].includes(word) ? { action: 'accept' } : { problems: ['answer "done", "decline" or "cancel"'] };
  }
  const { form } = request;
  const raw = rawValues(form, text.trim());
  if ('problems' in raw) return raw;
  const content: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of form.fields) {
    const value = raw.values[field.name];
    if (value === undefined) {
      // As a form would have submitted its pre-filled default.
      if (field.default !== undefined) content[field.name] = field.default;
      continue;
    }
    const coerced = typeof value === 'string' ? coerce(field, value) : value;
    if (coerced === undefined)
      problems.push(
        `${field.name} ${typeof value === 'string' ? `cannot be ${JSON.stringify(value.slice(0, 40))}` : 'is of the wrong type'}`,
      );
    else content[field.name] = coerced;
  }
  for (const name of Object.keys(raw.values)) if (!form.fields.some((field) => field.name === name)) content[name] = raw.values[name];
  problems.push(...checkElicitationContent(form, content));
  if (problems.length > 0) return { problems };
  return { action: 'accept', content: content as Record<string, ElicitationValue> };
}

/** The values by field name as typed: a JSON object, "name: value" lines, or the one field's bare value. */
function rawValues(form: ElicitationForm, text: string): { values: Record<string, unknown> } | { problems: string[] } {
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        return { values: { ...(parsed as Record<string, unknown>) } };
    } catch {
      return { problems: ['it starts with { but is not a JSON object'] };
    }
  }
  const values: Record<string, unknown> = {};
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const named = lines.map((line) => /^([A-Za-z_][A-Za-z0-9_.-]*)\s*[:=]\s*(.*)$/.exec(line));
  const only = bareField(form);
  if (only && !named.every((match) => match && form.fields.some((field) => field.name === match[1]))) {
    if (text) values[only.name] = text;
    return { values };
  }
  for (const [index, match] of named.entries()) {
    if (!match) return { problems: [`line ${index + 1} is not "name: value"`] };
    values[match[1]!] = match[2]!;
  }
  return { values };
}

/** The field a bare value answers: the only one, or the only required one (an approval's decision beside an optional reason). */
function bareField(form: ElicitationForm): ElicitationField | undefined {
  if (form.fields.length === 1) return form.fields[0];
  const required = form.fields.filter((field) => form.required.includes(field.name));
  return required.length === 1 ? required[0] : undefined;
}

function coerce(field: ElicitationField, text: string): ElicitationValue | undefined {
  const value = text.trim();
  switch (field.kind) {
    case 'string':
      return text;
    case 'choice':
      return field.options.find((choice) => choice.value === value || choice.label?.toLowerCase() === value.toLowerCase())?.value ?? value;
    case 'choices':
      return value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
        .map(
          (item) =>
            field.options.find((choice) => choice.value === item || choice.label?.toLowerCase() === item.toLowerCase())?.value ?? item,
        );
    case 'number':
    case 'integer': {
      const number = value === '' ? Number.NaN : Number(value);
      return Number.isFinite(number) ? number : undefined;
    }
    case 'boolean':
      if (['yes', 'y', 'true'].includes(value.toLowerCase())) return true;
      if (['no', 'n', 'false'].includes(value.toLowerCase())) return false;
      return undefined;
  }
}
