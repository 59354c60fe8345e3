import { existsSync, readdirSync } from 'node:fs';
import type { Collective } from '../collective/Collective.js';
import { LegionError, ParticipantNotFoundError } from '../errors.js';
import type { ConversationRef } from '../events/event-types.js';
import type { SendRequest, TurnResult } from '../runtime/turn.js';
import { writeJsonAtomic } from '../storage/atomic-json.js';
import { FileConversationLog } from '../storage/FileConversationLog.js';
import { UsageLedger } from '../storage/usage-ledger.js';
import { summarizeUsage, type UsageRecord, type UsageSummary } from '../providers/usage-summary.js';
import type { WorkspacePaths } from '../storage/workspace-paths.js';
import type { ToolSession } from '../tools/tool.js';
import { Conversation, type ConversationServices } from './Conversation.js';
import { conversationId, parseConversationId } from './conversation-id.js';
import type { Message } from './message.js';
import type { SessionMeta } from './session-meta.js';

export interface SessionServices extends ConversationServices {
  collective: Collective;
  paths: WorkspacePaths;
}

export interface SessionMessage {
  conversation: ConversationRef;
  message: Message;
}

/**
 * One persistent working session: many directional conversations, each its own
 * append-only log. Opening a session reads only its metadata; conversations
 * load when a turn needs them.
 */
export class Session implements ToolSession {
  private readonly conversations = new Map<string, Conversation>();
  private ledger: UsageLedger | undefined;

  constructor(
    private meta: SessionMeta,
    private readonly services: SessionServices,
  ) {}

  get id(): string {
    return this.meta.id;
  }

  get info(): Readonly<SessionMeta> {
    return this.meta;
  }

  /** Sends a message and waits for the responder's reply; runtime failures come back as error results. */
  async send(request: SendRequest): Promise<TurnResult> {
    const { collective } = this.services;
    const from = collective.require(request.from);
    const to = collective.get(request.to);
    if (!to || to.status === 'retired') throw new ParticipantNotFoundError(request.to, collective.ids());
    if (from.id === to.id) throw new LegionError('self_message', `${from.id} cannot send a message to itself.`, { participantId: from.id });
    const chain = request.chain ?? [];
    if (chain.length === 0) this.touch();
    const conversation = this.conversation({ initiator: from.id, responder: to.id, name: request.conversation });
    return conversation.send({
      from,
      to,
      text: request.message,
      chain,
      session: this,
      signal: request.signal,
      ifBusy: request.ifBusy ?? 'wait',
    });
  }

  conversation(key: { initiator: string; responder: string; name?: string | undefined }): Conversation {
    const id = conversationId(key);
    let conversation = this.conversations.get(id);
    if (!conversation) {
      const { paths } = this.services;
      const log = new FileConversationLog(paths.conversationFile(this.id, id), paths.conversationLock(this.id, id), {
        fsyncEachMessage: this.services.fsync === 'message',
        onWarning: (warning) => this.services.events.emit('storage:warning', { ...warning, path: paths.display(warning.path) }),
      });
      const ref: ConversationRef = { sessionId: this.id, conversationId: id, initiator: key.initiator, responder: key.responder, name: key.name };
      conversation = new Conversation(ref, log, this.services);
      this.conversations.set(id, conversation);
    }
    return conversation;
  }

  /** Conversations that exist on disk, whether or not this process has touched them. */
  listConversations(): ConversationRef[] {
    const dir = this.services.paths.conversationsDir(this.id);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((entry) => entry.endsWith('.jsonl'))
      .sort()
      .map((entry) => {
        const id = entry.slice(0, -'.jsonl'.length);
        return { sessionId: this.id, conversationId: id, ...parseConversationId(id) };
      });
  }

  /** The newest messages across all conversations, oldest first; reads only the end of each log. */
  recentMessages(limit: number): SessionMessage[] {
    const all: SessionMessage[] = [];
    for (const ref of this.listConversations()) {
      for (const message of this.conversation(ref).recent(limit)) all.push({ conversation: this.conversation(ref).ref, message });
    }
    all.sort((a, b) => (a.message.at < b.message.at ? -1 : a.message.at > b.message.at ? 1 : 0));
    return all.slice(-limit);
  }

  recordUsage(record: UsageRecord): void {
    this.usageLedger().append(record);
  }

  /** Tokens and cost of every model call in this session, per participant (own and with delegates) and per conversation. */
  usage(): UsageSummary {
    return summarizeUsage(this.usageLedger().read());
  }

  close(): void {
    for (const conversation of this.conversations.values()) conversation.close();
    this.conversations.clear();
    this.ledger?.close();
    this.ledger = undefined;
  }

  private usageLedger(): UsageLedger {
    this.ledger ??= new UsageLedger(this.services.paths.usageFile(this.id), (warning) =>
      this.services.events.emit('storage:warning', { ...warning, path: this.services.paths.display(warning.path) }),
    );
    return this.ledger;
  }

  private touch(): void {
    this.meta = { ...this.meta, lastActiveAt: new Date().toISOString() };
    // Only "last active" changes here: atomic (never torn) but not worth an fsync on every message.
    writeJsonAtomic(this.services.paths.sessionFile(this.id), this.meta, { durable: false });
  }
}
