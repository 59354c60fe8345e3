import type { Tool } from '../tool.js';
import { BUILTIN_TOOL_SUMMARIES } from './builtin-summaries.js';
import { BUILTIN_TOOL_PARAMETERS } from './builtin-tool-parameters.generated.js';

/**
 * Gives built-in tools the JSON Schema their models see, converted from their zod schemas ahead of
 * time: converting some thirty schemas is ~7 ms of every `legion run`. builtin-parameters.test.ts
 * checks that each one still equals the live conversion (`npx vitest run -u` rewrites the file).
 * Gives them their one-line summary too (`builtin-summaries.ts`), for small models.
 * Only for tools this folder creates: a tool of the same name from elsewhere keeps its own schema.
 */
export function withBuiltinParameters<T extends Tool>(tool: T): T {
  if (tool.parameters === undefined && Object.hasOwn(BUILTIN_TOOL_PARAMETERS, tool.name))
    tool.parameters = BUILTIN_TOOL_PARAMETERS[tool.name];
  if (tool.summary === undefined && Object.hasOwn(BUILTIN_TOOL_SUMMARIES, tool.name)) tool.summary = BUILTIN_TOOL_SUMMARIES[tool.name];
  return tool;
}
