/** How often a delegation's tool call shows its delegate's text as it streams: every delta would flood the editor. */
const FLUSH_MS = 250;
/** The end of the text shown while it streams (the delegate's answer is the call's content once done). */
const SHOWN_CHARS = 2_000;

/**
 * A delegate's streamed text as the live content of the `communicate` call that asked it: the
 * editor shows the delegation working, not only its final answer. Events name the conversation, so
 * each delegation's conversation is mapped to its call; what streams there is gathered and shown at
 * most every `FLUSH_MS`, and never after the call ended (its result then stands).
 */
export class DelegateText {
  private readonly calls = new Map<string, string>();
  private readonly texts = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly show: (toolCallId: string, text: string) => void) {}

  /** The conversation `communicate` call `toolCallId` sends into. */
  delegated(conversationId: string, toolCallId: string): void {
    this.calls.set(conversationId, toolCallId);
  }

  /** Text streamed in a conversation; ignored unless a delegation of this prompt sends into it. */
  text(conversationId: string, text: string): void {
    const toolCallId = this.calls.get(conversationId);
    if (toolCallId === undefined) return;
    this.texts.set(toolCallId, (this.texts.get(toolCallId) ?? '') + text);
    if (this.timers.has(toolCallId)) return;
    this.timers.set(
      toolCallId,
      setTimeout(() => {
        this.timers.delete(toolCallId);
        const gathered = this.texts.get(toolCallId) ?? '';
        this.show(toolCallId, gathered.length > SHOWN_CHARS ? `…${gathered.slice(-SHOWN_CHARS)}` : gathered);
      }, FLUSH_MS),
    );
  }

  /** The call ended: nothing streamed for it is shown any more. */
  end(toolCallId: string): void {
    clearTimeout(this.timers.get(toolCallId));
    this.timers.delete(toolCallId);
    this.texts.delete(toolCallId);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.texts.clear();
    this.calls.clear();
  }
}
