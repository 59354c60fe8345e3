import type { EventBus, LegionEvent } from '@legion-collective/core';
import { ConversationDepths, indentation } from './delegation-depth.js';
import { type TerminalOut, inert, inertLine } from './terminal-text.js';
import { describeClaimConflict } from './claim-lines.js';

const COMMUNICATE = 'communicate';

/**
 * Prints a collective's work as it happens, one line per step, indented by
 * delegation depth: who says what to whom, which tools run and what they return.
 */
export function printConversation(
  events: EventBus,
  out: TerminalOut,
  /** `reportsOwnFailure: false`: the caller says the top-level turn's failure itself (with its result), so it is not said twice. */
  options: { you?: string; width?: number; markdown?: ((text: string) => string[]) | undefined; reportsOwnFailure?: boolean } = {},
): () => void {
  const style = out.style;
  const width = options.width ?? 160;
  const depths = new ConversationDepths();
  // Every name and text below is a model's, a tool's or a config's: made inert before Legion's colours go around it.
  const name = (id: string): string => (id === options.you ? 'you' : inertLine(id));
  const line = (depth: number, text: string): void => {
    out.write(`${indentation(depth)}${text}\n`);
  };
  const clip = (text: string, max = width): string => {
    const flat = inertLine(text.replace(/[ \n\t]+/g, ' ').trim());
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  };

  return events.onAny((event: LegionEvent) => {
    depths.observe(event);
    switch (event.type) {
      case 'message:sent': {
        const depth = depths.of(event.conversationId);
        // A turn's ending is for its model; turn:end says what happened.
        if (event.message.ending) break;
        const text = event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        if (!text) break;
        const toolCalls = event.message.content.some((block) => block.type === 'tool_use');
        if (event.message.role === 'user') {
          line(depth, `${style.cyan(`${name(event.author)} → ${name(event.responder)}`)}  ${clip(text)}`);
        } else if (toolCalls) {
          line(depth + 1, `${style.dim(`${name(event.author)}:`)} ${style.dim(clip(text))}`);
        } else {
          const isTop = depth === 0;
          const header = style.green(`${name(event.author)} → ${name(event.initiator)}`);
          // The answer to you is shown whole (as markdown on a terminal that renders it: `options.markdown`), a delegate's on one line.
          if (isTop && options.markdown) line(depth, `${header}\n${options.markdown(text.trim()).join('\n')}`);
          else line(depth, `${header}  ${isTop ? inert(text.trim()) : clip(text)}`);
        }
        break;
      }
      case 'tool:call':
        if (event.toolUse.name === COMMUNICATE) break;
        line(
          depths.of(event.conversationId) + 1,
          `${style.magenta(`${name(event.participantId)} ⚙ ${inertLine(event.toolUse.name)}`)} ${style.dim(clip(JSON.stringify(event.toolUse.input), 100))}`,
        );
        break;
      case 'tool:result': {
        const depth = depths.of(event.conversationId) + 1;
        if (event.result.isError) line(depth, style.red(`↳ ${inertLine(event.toolUse.name)} failed: ${clip(event.result.content, 200)}`));
        else if (event.toolUse.name !== COMMUNICATE) line(depth, style.dim(`↳ ${clip(event.result.content, 120)}`));
        break;
      }
      case 'turn:end': {
        const depth = depths.of(event.conversationId);
        if (event.status === 'error' && (depth > 0 || options.reportsOwnFailure !== false))
          line(depth, style.red(`✗ ${name(event.participantId)}: ${inert(event.error ?? 'failed')}`));
        break;
      }
      case 'claim:conflict':
        line(depths.of(event.conversationId) + 1, style.yellow(describeClaimConflict(event)));
        break;
      case 'storage:warning':
        out.write(style.yellow(`warning: ${inertLine(event.path)}: ${inert(event.problem)}\n`));
        break;
      case 'window:guessed':
        line(depths.of(event.conversationId), style.yellow(`note: ${inert(event.text)}`));
        break;
      case 'provider:retry':
        line(
          depths.of(event.conversationId),
          style.yellow(
            `${name(event.participantId)}'s model (${inertLine(event.provider)}) failed: ${clip(event.reason, 160)}; ${event.askedByProvider ? 'the provider asked to wait' : 'waiting'} ${Math.round(event.waitMs / 100) / 10} s, retry ${event.attempt} of ${event.of}`,
          ),
        );
        break;
      default:
        break;
    }
  });
}
