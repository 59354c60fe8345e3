import type { MockParticipant, MockResponse } from '../../team/index.js';
import { textOf } from '../../kernel/index.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '../../session/index.js';

/** Answers by trigger: the first response whose trigger matches the incoming text. */
export class MockRuntime implements ParticipantRuntime {
  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const participant = turn.participant as MockParticipant;
    const text = turn.message ? textOf(turn.message) : '';
    const match = participant.responses.find((response) => matchesTrigger(response.trigger, text));
    if (!match) {
      if (participant.fallback !== undefined) return { status: 'success', reply: participant.fallback };
      return {
        status: 'error',
        code: 'mock_no_match',
        error: `Mock participant "${participant.id}" has no response whose trigger matches "${text.slice(0, 80)}". Add one (or a "*" trigger, or "fallback") to its participant file.`,
      };
    }
    if (match.delayMs) await sleep(match.delayMs, turn.signal);
    return { status: 'success', reply: match.response };
  }
}

export function matchesTrigger(trigger: MockResponse['trigger'], text: string): boolean {
  if (trigger === '*') return true;
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(trigger);
  if (regex) return new RegExp(regex[1] ?? '', regex[2]).test(text);
  return text.toLowerCase().includes(trigger.toLowerCase());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
