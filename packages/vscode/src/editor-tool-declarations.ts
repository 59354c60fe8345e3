import { CALL_TOOL_TOOL, EDITOR_BUILTIN_TOOLS, EDITOR_TOOL_PREFIX, LIST_TOOLS_TOOL, RUN_AGENT_TOOL } from './editor-tool-catalogue.js';

/** One entry of package.json's `contributes.languageModelTools`, as VS Code 1.100 reads it. */
export interface LanguageModelToolDeclaration {
  name: string;
  displayName: string;
  userDescription?: string;
  modelDescription: string;
  tags: string[];
  canBeReferencedInPrompt: boolean;
  toolReferenceName: string;
  /** Offered only while the user has `legion.offerToolsToEditor` on. */
  when: string;
  inputSchema: Record<string, unknown>;
}

/** What the declarations are made from: a built-in tool as core registers it. */
export interface DeclaredTool {
  name: string;
  description: string;
  summary?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
}

const WHEN = 'config.legion.offerToolsToEditor';
const TAGS = ['legion'];
const UNDER_POLICY =
  "Runs as the workspace's user under the Legion workspace's policies: a call they deny is refused, one that needs approval asks the user first.";

/** The three tools of the extension's own, around the built-ins. */
const EXTENSION_TOOLS: LanguageModelToolDeclaration[] = [
  {
    name: RUN_AGENT_TOOL,
    displayName: 'Legion: run an agent',
    modelDescription:
      'Gives a task to an agent of the workspace Legion collective (default: its entry agent), which may delegate to other agents; returns the reply. Tools the agents call follow Legion policies.',
    tags: TAGS,
    canBeReferencedInPrompt: true,
    toolReferenceName: 'legion',
    when: WHEN,
    inputSchema: {
      type: 'object',
      properties: {
        task: { type: 'string', description: 'What the collective should do' },
        agent: { type: 'string', description: 'An agent id; default the entry agent' },
      },
      required: ['task'],
    },
  },
  {
    name: LIST_TOOLS_TOOL,
    displayName: 'Legion: list tools',
    userDescription: "The workspace Legion's tools, with what its policies let you do with each.",
    modelDescription: `Lists every tool of the workspace Legion that ${CALL_TOOL_TOOL} can run (built-in, MCP servers', the workspace's own, other extensions'), with its effect and whether the workspace's policies run it, ask the user, or deny it. Set full for whole descriptions and input schemas; filter by a name prefix such as "mcp__".`,
    tags: TAGS,
    canBeReferencedInPrompt: true,
    toolReferenceName: LIST_TOOLS_TOOL,
    when: WHEN,
    inputSchema: {
      type: 'object',
      properties: {
        prefix: { type: 'string', description: 'Only tools whose name starts with this.' },
        full: { type: 'boolean', description: 'Whole descriptions and input JSON Schemas instead of first sentences.' },
      },
    },
  },
  {
    name: CALL_TOOL_TOOL,
    displayName: 'Legion: call a tool',
    userDescription: "Runs any tool of the workspace Legion by name (MCP servers', the workspace's own), under its policies.",
    modelDescription: `Runs one tool of the workspace Legion by name with its input, for tools not offered on their own (MCP servers', the workspace's declarative tools, other extensions'). ${LIST_TOOLS_TOOL} lists them, their effects and (with full) their input schemas. ${UNDER_POLICY}`,
    tags: TAGS,
    canBeReferencedInPrompt: true,
    toolReferenceName: CALL_TOOL_TOOL,
    when: WHEN,
    inputSchema: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: `The Legion tool's name, as ${LIST_TOOLS_TOOL} gives it` },
        input: { type: 'object', description: "The tool's input object" },
      },
      required: ['tool', 'input'],
    },
  },
];

/**
 * package.json's `languageModelTools`: the extension's own three, then each offered built-in with
 * core's description and JSON Schema (the schema core's models see, from the tool's zod schema).
 * Throws when core has no tool of an offered name, so a renamed tool fails the check, not the user.
 */
export function editorToolDeclarations(builtins: ReadonlyMap<string, DeclaredTool>): LanguageModelToolDeclaration[] {
  const offered = EDITOR_BUILTIN_TOOLS.map((name): LanguageModelToolDeclaration => {
    const tool = builtins.get(name);
    if (!tool?.parameters)
      throw new Error(
        `editor-tool-catalogue.ts offers ${name}, which core registers no longer (or without a JSON Schema): update EDITOR_BUILTIN_TOOLS`,
      );
    const editorName = `${EDITOR_TOOL_PREFIX}${name}`;
    return {
      name: editorName,
      displayName: `Legion: ${name}`,
      ...(tool.summary ? { userDescription: tool.summary } : {}),
      modelDescription: `${tool.description} ${UNDER_POLICY}`,
      tags: TAGS,
      canBeReferencedInPrompt: true,
      toolReferenceName: editorName,
      when: WHEN,
      inputSchema: tool.parameters,
    };
  });
  return [...EXTENSION_TOOLS, ...offered];
}
