import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import type { EditorFiles } from '@legion-collective/core';

/**
 * The editor's files as core's port, for one ACP session, when the client's `initialize` offered
 * them (`clientCapabilities.fs`): `fs/read_text_file` and `fs/write_text_file`. Undefined when it
 * offered neither, so nothing changes for an editor without them.
 *
 * A read the client answers with an error (the file does not exist, it refuses the path, or any
 * other JSON-RPC error, the connection closed included) is `undefined`: the tool reads the disk,
 * which gives its own answer (e.g. "does not exist"). A refused write is thrown: the tool reports
 * it, and does not write the disk behind the editor's back.
 */
export function acpEditorFiles(
  client: AgentContext,
  sessionId: () => string,
  capabilities: ClientCapabilities | undefined,
): EditorFiles | undefined {
  const fs = capabilities?.fs;
  const reads = fs?.readTextFile === true;
  const writes = fs?.writeTextFile === true;
  if (!reads && !writes) return undefined;
  return {
    ...(reads
      ? {
          readText: async (path: string, signal: AbortSignal): Promise<string | undefined> => {
            try {
              const response = await client.request('fs/read_text_file', { sessionId: sessionId(), path }, { cancellationSignal: signal });
              return response.content;
            } catch {
              return undefined;
            }
          },
        }
      : {}),
    ...(writes
      ? {
          writeText: async (path: string, content: string, signal: AbortSignal): Promise<void> => {
            await client.request('fs/write_text_file', { sessionId: sessionId(), path, content }, { cancellationSignal: signal });
          },
        }
      : {}),
  };
}
