import { z } from 'zod';

/*
 * The shape of one `.legion/tools/<name>.json` file. The published JSON Schema
 * (packages/core/schemas/workspace-tool.schema.json, for editors) says the
 * same thing; workspace-tool-schema.test.ts checks that both accept and reject
 * the same examples. Rules a JSON Schema cannot express (placeholders that
 * name nothing, a body on a GET) live in workspace-tool-checks.ts.
 */

export const WORKSPACE_TOOL_FORMAT_VERSION = 1;

/** What model APIs accept as a tool name. */
const ToolNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a name of 1 to 64 letters, digits, "_" or "-"');

/** Names usable as `${name}` placeholders. */
const IdentifierSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a name of letters, digits and "_" that does not start with a digit');

const HeaderNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name');

export const ShellExecutionSchema = z.lazy(() =>
  z
    .object({
      type: z.literal('shell'),
      /** Program and arguments, run without a shell: `["git", "log", "-n", "${count}"]`. */
      command: z.tuple([z.string().min(1)], z.string()),
      /** Working directory, relative to the workspace root. */
      cwd: z.string().min(1).optional(),
      /** Extra environment variables for the command (templates allowed). */
      env: z.record(IdentifierSchema, z.string()).optional(),
    })
    .strict(),
);

export const HttpExecutionSchema = z.lazy(() =>
  z
    .object({
      type: z.literal('http'),
      method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
      /** `https://…` or a variable holding the base (`${API_URL}/items/${id}`); an argument fills one path segment or is a query value (url-template.ts). */
      url: z.string().regex(/^(https?:\/\/|\$\{)/, 'expected an http:// or https:// URL, or one that starts with a ${VARIABLE}'),
      headers: z.record(HeaderNameSchema, z.string()).optional(),
      /** A string template, or JSON whose string leaves are templates (a leaf that is exactly `${arg}` keeps the argument's type); string templates encode values for their content type (body-template.ts). */
      body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
      /** How long to wait for the response; defaults to the tool's `timeoutMs`. */
      timeoutMs: z.number().int().positive().optional(),
    })
    .strict(),
);

export const WorkspaceToolExecutionSchema = z.lazy(() => z.discriminatedUnion('type', [ShellExecutionSchema, HttpExecutionSchema]));

/** The tool's input, as JSON Schema: an object, with its fields under `properties`. */
export const ToolParametersSchema = z.lazy(() =>
  z
    .object({
      type: z.literal('object'),
      properties: z
        .record(
          z.string(),
          z
            .object({
              /** Legion's own keyword: this parameter's values may start with "-" in a shell tool's argv (see argv-template.ts). */
              allowOptionLike: z.boolean().optional(),
            })
            .catchall(z.unknown()),
        )
        .optional(),
      required: z.array(z.string()).optional(),
    })
    .loose(),
);

export const WorkspaceToolFileSchema = z.lazy(() =>
  z
    .object({
      /** Lets editors find the published schema; ignored by Legion. */
      $schema: z.string().optional(),
      version: z.literal(WORKSPACE_TOOL_FORMAT_VERSION).optional(),
      name: ToolNameSchema,
      description: z.string().min(1),
      parameters: ToolParametersSchema.optional(),
      execution: WorkspaceToolExecutionSchema,
      /** Values for `${NAME}` placeholders; they may use `${env:NAME}`. */
      variables: z.record(IdentifierSchema, z.string()).optional(),
      /** Defaults to true: the call waits for approval unless a policy allows it. */
      requiresApproval: z.boolean().optional(),
      timeoutMs: z.number().int().positive().optional(),
      category: z.string().min(1).optional(),
      tags: z.array(z.string().min(1)).optional(),
    })
    .strict(),
);

export type WorkspaceToolFile = z.infer<typeof WorkspaceToolFileSchema>;
export type ShellExecution = z.infer<typeof ShellExecutionSchema>;
export type HttpExecution = z.infer<typeof HttpExecutionSchema>;
