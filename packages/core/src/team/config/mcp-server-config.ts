import { z } from 'zod';
import { HttpUrlSchema } from '../collective/participant.js';

/** A server name becomes part of every tool name (`mcp__<server>__<tool>`), so `__` and odd characters are out. */
export const McpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/, 'expected a server name of letters and digits, optionally joined by single "-" or "_"');

/**
 * One MCP server: `{ command, args, env, cwd }` starts it as a child process
 * speaking stdio; `{ url, headers }` talks Streamable HTTP to a running one.
 * `env` and `headers` values may use `${env:NAME}`, so that tokens come from
 * the environment and not from a file meant for git.
 */
export const McpServerConfigSchema = z
  .object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string().min(1), z.string()).optional(),
    /** Relative to the workspace root; defaults to it. */
    cwd: z.string().min(1).optional(),
    url: HttpUrlSchema.optional(),
    headers: z.record(z.string().min(1), z.string()).optional(),
    /** Per call; defaults to the tool timeout from `limits`. */
    timeoutMs: z.number().int().positive().optional(),
    /**
     * `true`: the server's tools are listed to the model by name and one line,
     * and a tool's schema is sent once the agent loads it (`load_tools`) or calls
     * it; `false`: every schema in every request. Unset: as the agent's
     * `context.toolSchemas` says (`compact`, the small profile's: lazy; `full`: all sent).
     */
    lazy: z.boolean().optional(),
  })
  .strict()
  .superRefine((server, context) => {
    if (server.command === undefined && server.url === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'expected "command" (a server started over stdio) or "url" (a Streamable HTTP server)',
      });
    } else if (server.command !== undefined && server.url !== undefined) {
      context.addIssue({ code: 'custom', path: ['url'], message: 'expected either "command" or "url", not both' });
    }
    if (server.url !== undefined) {
      for (const field of ['args', 'env', 'cwd'] as const) {
        if (server[field] !== undefined)
          context.addIssue({ code: 'custom', path: [field], message: 'applies only to stdio servers (with "command"), not to "url"' });
      }
    }
    if (server.command !== undefined && server.headers !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['headers'],
        message: 'applies only to Streamable HTTP servers (with "url"), not to "command"',
      });
    }
  });
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/** Names are checked here rather than as the record's key schema, whose zod error would not say what a name may be. */
export const McpServersSchema = z.record(z.string(), McpServerConfigSchema).superRefine((servers, context) => {
  for (const name of Object.keys(servers)) {
    const parsed = McpServerNameSchema.safeParse(name);
    if (!parsed.success)
      context.addIssue({ code: 'custom', path: [name], message: parsed.error.issues[0]?.message ?? 'expected a valid server name' });
  }
});
