import { existsSync, watch, type FSWatcher } from 'node:fs';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { assertSessionName } from '../record-names.js';

/** The session index's file name in the session's folder (`WorkspacePaths.sessionIndexFile`). */
const INDEX_FILE = 'index.json';

/**
 * The file backend's wake-up hint for followers: change notifications
 * (fs.watch) on the session's folder (the approvals, questions and conflicts logs, the conversations
 * folder appearing) and on its conversations folder once it exists. A watcher
 * that fails is dropped and tried again on the next notification; followers
 * poll anyway, for file systems whose notifications never arrive.
 */
export function watchSessionFiles(paths: WorkspacePaths, sessionId: string, onChange: () => void): () => void {
  assertSessionName(sessionId);
  const conversations = paths.conversationsDir(sessionId);
  let closed = false;
  let sessionWatcher: FSWatcher | undefined;
  let conversationsWatcher: FSWatcher | undefined;
  const arm = (): void => {
    if (closed) return;
    sessionWatcher ??= tryWatch(paths.sessionDir(sessionId), changedUnlessIndex, () => (sessionWatcher = undefined));
    if (!conversationsWatcher && existsSync(conversations))
      conversationsWatcher = tryWatch(conversations, changed, () => (conversationsWatcher = undefined));
  };
  function changed(): void {
    if (closed) return;
    arm();
    onChange();
  }
  // The session index (`index.json` and its temporary files) is rewritten at each append, which woke
  // followers already; nothing a follower reads changes with it.
  function changedUnlessIndex(filename: string | null): void {
    if (filename?.startsWith(INDEX_FILE)) return;
    changed();
  }
  arm();
  return () => {
    closed = true;
    sessionWatcher?.close();
    conversationsWatcher?.close();
    sessionWatcher = conversationsWatcher = undefined;
  };
}

function tryWatch(path: string, onChange: (filename: string | null) => void, onFail: () => void): FSWatcher | undefined {
  let watcher: FSWatcher;
  try {
    // Not persistent: a follower alone never keeps a process alive.
    watcher = watch(path, { persistent: false }, (_event, filename) => onChange(filename));
  } catch {
    // No notifications here (yet): the poll still reads.
    return undefined;
  }
  watcher.on('error', () => {
    watcher.close();
    onFail();
  });
  return watcher;
}
