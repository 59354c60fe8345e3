/**
 * An editor's view of the workspace's files, offered by the surface a session is driven from (an
 * ACP client that advertises `fs`): file tools read and write through it, so an agent sees the
 * unsaved buffer the user is looking at, and its changes land in that buffer (each method only if
 * the editor offers it). It is a byte source and sink only: the tools resolve every path inside
 * the workspace, refuse `.legion/`, check claims and policy before it is asked, and bound what it
 * returns as they bound a file read.
 */
export interface EditorFiles {
  /**
   * The editor's text of the file at this absolute path (its unsaved buffer if open), or
   * `undefined` when the editor has none to give (not open, or it failed): the tool reads the disk.
   */
  readText?(absolutePath: string, signal: AbortSignal): Promise<string | undefined>;
  /** Replaces the file's whole text in the editor (which saves it, or keeps it as an unsaved buffer, as it does). Throws if refused. */
  writeText?(absolutePath: string, text: string, signal: AbortSignal): Promise<void>;
}
