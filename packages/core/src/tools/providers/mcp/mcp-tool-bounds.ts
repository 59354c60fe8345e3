import type { Tool as McpTool } from '@modelcontextprotocol/client';

/**
 * What one MCP server's tools may put in every model request. A server is code of someone else
 * (or one a model configured): without bounds a 1 MB description is sent with each request,
 * costing tokens and crowding the context, and a listing that pages without end never ends.
 *
 * - description 4,096 characters: Legion's own longest (shell_run) is about 630; a server's
 *   description six times that is still read whole, and past it the text is a document, which
 *   a tool can return when it is called.
 * - input schema 32 KiB of JSON: Legion's own largest (create_agent, every field described) is
 *   about 2.5 KB. A tool whose schema is larger is not offered: a schema cannot be cut without
 *   changing what the tool accepts.
 * - 256 tools per server: more than a model chooses well from (OpenAI's API takes 128 tools in
 *   one request); the rest are not offered, and the listing stops paging there.
 */
export const MCP_TOOL_LIMITS = { descriptionChars: 4096, schemaBytes: 32 * 1024, toolsPerServer: 256 } as const;

export interface BoundedMcpTool {
  tool: McpTool;
  /** The description the model gets (the server's, its title, or a default), at most `descriptionChars`. */
  description: string;
  /** The input schema without its `$schema`. */
  parameters: Record<string, unknown>;
}

/** One server's tools within the limits, and a warning for each thing cut or left out (naming the server and tool). */
export function boundMcpTools(server: string, tools: readonly McpTool[]): { tools: BoundedMcpTool[]; warnings: string[] } {
  const warnings: string[] = [];
  const bounded: BoundedMcpTool[] = [];
  const limit = MCP_TOOL_LIMITS;
  if (tools.length > limit.toolsPerServer) {
    warnings.push(
      `it offers more than ${limit.toolsPerServer} tools; only the first ${limit.toolsPerServer} are offered to models (from "${tools[limit.toolsPerServer]!.name}" on, they are left out)`,
    );
  }
  for (const tool of tools.slice(0, limit.toolsPerServer)) {
    const { $schema: _declared, ...parameters } = tool.inputSchema as Record<string, unknown>;
    const schemaBytes = Buffer.byteLength(JSON.stringify(parameters), 'utf8');
    if (schemaBytes > limit.schemaBytes) {
      warnings.push(
        `the input schema of "${tool.name}" is ${schemaBytes} bytes, over the limit of ${limit.schemaBytes}; the tool is not offered to models (every request would carry its schema)`,
      );
      continue;
    }
    const full = tool.description ?? tool.title ?? `The "${tool.name}" tool of MCP server "${server}".`;
    const chars = [...full];
    let description = full;
    if (chars.length > limit.descriptionChars) {
      const note = ` … [cut by Legion: ${chars.length} characters; at most ${limit.descriptionChars} are sent]`;
      description = chars.slice(0, limit.descriptionChars - note.length).join('') + note;
      warnings.push(
        `the description of "${tool.name}" is ${chars.length} characters; models get its first ${limit.descriptionChars - note.length} (the limit is ${limit.descriptionChars}, as every request carries it)`,
      );
    }
    bounded.push({ tool, description, parameters });
  }
  return { tools: bounded, warnings };
}
