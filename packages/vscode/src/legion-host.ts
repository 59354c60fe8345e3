import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chooseSession, Legion, LEGION_DIR, type Session } from '@legion-collective/core';
import { storageSelection, type StorageSelection } from '@legion-collective/core/management';
import * as vscode from 'vscode';

/**
 * The workspace's one Legion in the extension host, opened on first use. Everything the
 * extension shows or does goes through it: no second implementation of anything.
 */
export class LegionHost implements vscode.Disposable {
  private opened: Legion | undefined;
  private starting: Promise<Legion> | undefined;
  private failed: Error | undefined;
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

  /**
   * The open Legion; opens it on first use. Throws with the fix when the workspace has none, and
   * for a workspace whose sessions are in PostgreSQL until `start()` has connected to it.
   */
  open(): Legion {
    if (this.opened) return this.opened;
    const root = this.requireWorkspace();
    const selected = storageSelection({ root });
    if (selected.kind === 'postgres') {
      void this.start().catch(() => undefined);
      throw new Error(
        this.failed
          ? this.failed.message
          : `Legion is connecting to this workspace's PostgreSQL database (${sourceOf(selected)}); try again in a moment.`,
      );
    }
    return this.remember(Legion.open({ root }));
  }

  /**
   * Opens the Legion where the workspace keeps its sessions: its files, or the PostgreSQL database
   * of the config's "storage" or LEGION_DATABASE_URL (as the legion command does). The PostgreSQL
   * backend and its driver are bundled but loaded only for a workspace that uses them.
   */
  async start(): Promise<Legion> {
    if (this.opened) return this.opened;
    const root = this.requireWorkspace();
    const selected = storageSelection({ root });
    if (selected.kind === 'files') return this.open();
    this.starting ??= this.connect(root, selected).then(
      (legion) => legion,
      (error: unknown) => {
        this.failed = error instanceof Error ? error : new Error(String(error));
        this.starting = undefined;
        throw this.failed;
      },
    );
    return this.starting;
  }

  private async connect(root: string, selected: Extract<StorageSelection, { kind: 'postgres' }>): Promise<Legion> {
    const { PostgresSessionBackend, displayUrl } = await import('@legion-collective/store-postgres');
    const backend = new PostgresSessionBackend({
      url: selected.url,
      urlFromWorkspaceFile: selected.fromWorkspaceFile,
      onWarning: (warning) => this.opened?.sessions.warn(warning),
    });
    try {
      await backend.ready();
    } catch (error) {
      await backend.close();
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `Could not use the PostgreSQL database ${displayUrl(selected.url)} (from ${sourceOf(selected)}): ${message}. Fix: start the database or correct the URL, then run "Developer: Reload Window"; or unset LEGION_DATABASE_URL (or "storage.kind") to keep sessions in the workspace's files.`,
      );
    }
    try {
      this.failed = undefined;
      return this.remember(Legion.open({ root, backend }));
    } catch (error) {
      await backend.close();
      throw error;
    }
  }

  private remember(legion: Legion): Legion {
    this.opened = legion;
    this.openedEmitter.fire(legion);
    return legion;
  }

  private requireWorkspace(): string {
    if (!this.root) throw new Error('Legion needs a folder: open one, then run "Legion: Initialize Workspace".');
    if (!this.hasWorkspace())
      throw new Error(`${this.root} has no ${LEGION_DIR}/ folder: run "Legion: Initialize Workspace" to create one.`);
    return this.root;
  }

  /** The session the chat works in: the latest one (as `legion` resumes), or the one `/new` made. */
  async session(): Promise<Session> {
    this.current ??= await chooseSession((await this.start()).sessions);
    return this.current;
  }

  async newSession(title?: string): Promise<Session> {
    this.current = await chooseSession((await this.start()).sessions, { newSession: true, ...(title ? { title } : {}) });
    return this.current;
  }

  async dispose(): Promise<void> {
    this.openedEmitter.dispose();
    await this.opened?.close();
  }
}

function sourceOf(selected: Extract<StorageSelection, { kind: 'postgres' }>): string {
  return selected.source === 'config' ? 'the "storage.url" config' : 'LEGION_DATABASE_URL';
}
