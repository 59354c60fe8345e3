import { z } from 'zod';

/** One tool as one agent's model meets it (core's `describeTools(agent)`). */
export const AgentToolSchema = z.object({
  name: z.string(),
  /** `builtin`, `workspace`, `mcp`, … */
  source: z.string(),
  description: z.string(),
  effect: z.string(),
  visible: z.boolean(),
  hiddenBecause: z.string().optional(),
  approval: z.object({ mode: z.enum(['auto', 'requires_approval', 'deny']), reason: z.string(), source: z.string(), scoped: z.boolean() }),
  schemaTokens: z.number().optional(),
  offered: z.enum(['whole', 'compact', 'on demand', 'never']).optional(),
});
export type AgentTool = z.infer<typeof AgentToolSchema>;

/** `GET /api/tools?agent=ID`. */
export const AgentToolsResponseSchema = z.object({
  agent: z.string(),
  tools: z.array(AgentToolSchema),
  /** Tools that would be there but are not (a configured MCP server that failed). */
  missing: z.array(z.object({ pattern: z.string(), source: z.string(), reason: z.string() })),
});
export type AgentToolsResponse = z.infer<typeof AgentToolsResponseSchema>;
