import type { ApprovalAnswer, ApprovalView, UserQuestion, UserSurface } from '@legion-collective/core';
import * as vscode from 'vscode';
import { approvalButtons, choiceOfTitle } from './approval-buttons.js';
import { approvalDetail, approvalMarkdown } from './approval-markdown.js';
import { questionMarkdown, questionNotice } from './ui-text.js';
import { visibleText } from './visible-text.js';

export const MEDIUM = 'vscode';

/** A question or approval request the chat shows now, until it is answered here or elsewhere. */
export type PendingItem =
  { kind: 'approval'; id: string; request: ApprovalView } | { kind: 'question'; id: string; question: UserQuestion };

interface OpenBatch {
  requests: ApprovalView[];
  answered: Map<string, ApprovalAnswer>;
  finish(): void;
}

/**
 * The editor as a user surface, attached through `legion.attachUser` like the REPL and the
 * browser: questions and approvals are shown in the chat request that is running (or as a
 * notification when none is), answered with buttons there, and withdrawn when another surface
 * or process answers first.
 */
export class ChatUserSurface implements vscode.Disposable {
  private readonly pending = new Map<string, PendingItem & { settle(value: string | ApprovalAnswer): void }>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** The chat responses that run now, newest last: what is asked is shown in the newest. */
  private readonly streams: vscode.ChatResponseStream[] = [];
  readonly onDidChange = this.changed.event;

  readonly surface: UserSurface = {
    medium: MEDIUM,
    ask: (question, { signal }) => this.ask(question, signal),
    approve: (requests, { signal }) => this.approve(requests, signal),
  };

  /** Shows what is asked in this chat response while `run` lasts. */
  async showIn<T>(stream: vscode.ChatResponseStream, run: () => Promise<T>): Promise<T> {
    this.streams.push(stream);
    try {
      return await run();
    } finally {
      this.streams.splice(this.streams.indexOf(stream), 1);
    }
  }

  items(): PendingItem[] {
    return [...this.pending.values()].map(({ settle: _settle, ...item }) => item);
  }

  /** Answers a shown question; false when it is no longer asked here (answered elsewhere). */
  answer(questionId: string, text: string): boolean {
    const item = this.pending.get(questionId);
    if (item?.kind !== 'question') return false;
    item.settle(text);
    return true;
  }

  /** Decides a shown approval request; false when it is no longer asked here. */
  decide(answer: ApprovalAnswer): boolean {
    const item = this.pending.get(answer.id);
    if (item?.kind !== 'approval') return false;
    item.settle(answer);
    return true;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private ask(question: UserQuestion, signal: AbortSignal): Promise<string> {
    const id = question.id ?? `q_${question.conversation.conversationId}_${Date.now()}`;
    return new Promise<string>((resolve, reject) => {
      const withdrawn = (): void => {
        this.remove(id);
        reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn'));
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      this.pending.set(id, {
        kind: 'question',
        id,
        question,
        settle: (value) => {
          signal.removeEventListener('abort', withdrawn);
          this.remove(id);
          resolve(String(value));
        },
      });
      this.changed.fire();
      const stream = this.streams.at(-1);
      const heading = questionMarkdown(question);
      if (stream) {
        stream.markdown(heading);
        stream.button({ command: 'legion.question.answer', title: 'Answer', arguments: [id] });
      } else {
        void vscode.window.showInformationMessage(questionNotice(question), 'Answer').then((choice) => {
          if (choice) void vscode.commands.executeCommand('legion.question.answer', id);
        });
      }
    });
  }

  private approve(requests: ApprovalView[], signal: AbortSignal): Promise<ApprovalAnswer[]> {
    return new Promise<ApprovalAnswer[]>((resolve, reject) => {
      const batch: OpenBatch = {
        requests,
        answered: new Map(),
        finish: () => {
          signal.removeEventListener('abort', withdrawn);
          resolve(requests.map((request) => batch.answered.get(request.id)!));
        },
      };
      const withdrawn = (): void => {
        for (const request of requests) this.remove(request.id);
        reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn'));
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      const stream = this.streams.at(-1);
      for (const request of requests) {
        this.pending.set(request.id, {
          kind: 'approval',
          id: request.id,
          request,
          settle: (value) => {
            batch.answered.set(request.id, value as ApprovalAnswer);
            this.remove(request.id);
            // Core decides a model response's requests together: wait for every one of them.
            if (requests.every((each) => batch.answered.has(each.id))) batch.finish();
          },
        });
        const text = approvalMarkdown(request);
        if (stream) {
          stream.markdown(text);
          for (const button of approvalButtons())
            stream.button({
              command: 'legion.approval.decide',
              title: button.title,
              tooltip: button.tooltip,
              arguments: [request.id, button.choice],
            });
        } else {
          // No chat to show it in: a dialog, with all of the input as its detail, so it is read before answering.
          const titles = approvalButtons().map((button) => button.title);
          void vscode.window
            .showInformationMessage(
              `Legion: ${visibleText(request.requester)} wants to run ${visibleText(request.tool)}`,
              { modal: true, detail: approvalDetail(request) },
              ...titles,
            )
            .then((title) => {
              const choice = choiceOfTitle(title);
              if (choice) void vscode.commands.executeCommand('legion.approval.decide', request.id, choice);
            });
        }
      }
      this.changed.fire();
    });
  }

  private remove(id: string): void {
    if (this.pending.delete(id)) this.changed.fire();
  }
}
