import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, LEGION_DIR, type Session } from '@legion-collective/core';
import * as vscode from 'vscode';

/**
 * The workspace's one Legion in the extension host, opened on first use. Everything the
 * extension shows or does goes through it: no second implementation of anything.
 */
export class LegionHost implements vscode.Disposable {
  private opened: Legion | undefined;
  private current: Session | undefined;
  private readonly openedEmitter = new vscode.EventEmitter<Legion>();
  /** Fires once the Legion is open: views, the user surface and providers attach then. */
  readonly onDidOpen = this.openedEmitter.event;

  constructor(readonly root: string | undefined) {}

  /** Whether the workspace has a `.legion/`. */
  hasWorkspace(): boolean {
    return this.root !== undefined && existsSync(join(this.root, LEGION_DIR));
  }

  get legion(): Legion | undefined {
    return this.opened;
  }

  /** The open Legion; opens it on first use. Throws with the fix when the workspace has none. */
  open(): Legion {
    if (this.opened) return this.opened;
    if (!this.root) throw new Error('Legion needs a folder: open one, then run "Legion: Initialize Workspace".');
    if (!this.hasWorkspace()) throw new Error(`${this.root} has no ${LEGION_DIR}/ folder: run "Legion: Initialize Workspace" to create one.`);
    this.opened = Legion.open({ root: this.root });
    this.openedEmitter.fire(this.opened);
    return this.opened;
  }

  /** The session the chat works in: the latest one (as `legion` resumes), or the one `/new` made. */
  async session(): Promise<Session> {
    this.current ??= await this.open().sessions.resumeOrCreate();
    return this.current;
  }

  async newSession(title?: string): Promise<Session> {
    this.current = await this.open().sessions.create(title ? { title } : {});
    return this.current;
  }

  async dispose(): Promise<void> {
    this.openedEmitter.dispose();
    await this.opened?.close();
  }
}
