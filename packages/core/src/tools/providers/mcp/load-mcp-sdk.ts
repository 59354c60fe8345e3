import { LegionError } from '../../../kernel/index.js';

/** The MCP client package core uses, an optional peer dependency pinned to the version it is tested with. */
export const MCP_CLIENT_PACKAGE = '@modelcontextprotocol/client';

/** The parts of `@modelcontextprotocol/client` Legion uses, imported together on first need. */
export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/client').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/client/stdio').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/client').StreamableHTTPClientTransport;
  SdkError: typeof import('@modelcontextprotocol/client').SdkError;
  SdkHttpError: typeof import('@modelcontextprotocol/client').SdkHttpError;
}

let loading: Promise<McpSdk> | undefined;

/**
 * Imports the MCP client the first time a configured server is used: it is an
 * optional peer, like the LLM SDKs, so that a workspace without MCP servers
 * neither needs it installed nor pays for loading it.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio')]).then(
    ([client, stdio]): McpSdk => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: client.StreamableHTTPClientTransport,
      SdkError: client.SdkError,
      SdkHttpError: client.SdkHttpError,
    }),
    (error: unknown) => {
      loading = undefined;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
        throw new LegionError(
          'mcp_sdk_missing',
          `MCP servers are configured ("mcpServers"), but the "${MCP_CLIENT_PACKAGE}" package is not installed. Install it: npm install ${MCP_CLIENT_PACKAGE}@2.4.0`,
          {},
          { cause: error },
        );
      }
      throw error;
    },
  );
  return loading;
}
