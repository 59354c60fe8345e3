import { LegionError } from '../../../errors.js';

/** The parts of `@modelcontextprotocol/sdk` Legion uses, imported together on first need. */
export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
}

let loading: Promise<McpSdk> | undefined;

/**
 * Imports the MCP SDK the first time a configured server is used: it is an
 * optional peer, like the LLM SDKs, so that a workspace without MCP servers
 * neither needs it installed nor pays for loading it.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(
    ([client, stdio, http, types]): McpSdk => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    }),
    (error: unknown) => {
      loading = undefined;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
        throw new LegionError(
          'mcp_sdk_missing',
          'MCP servers are configured ("mcpServers"), but the "@modelcontextprotocol/sdk" package is not installed. Install it: npm install @modelcontextprotocol/sdk',
          {},
          { cause: error },
        );
      }
      throw error;
    },
  );
  return loading;
}
