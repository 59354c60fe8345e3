import {
  McpServer,
  type CallToolResult,
  type InputRequiredResult,
  type ProtocolEra,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Participant } from '@legion-collective/core';
import { errorMessage } from '@legion-collective/core';
import { AnswerApprovalInputSchema, answerApproval, listApprovals, ListApprovalsInputSchema } from './approval-tools.js';
import { askAgent, AskInputSchema } from './ask-agent.js';
import type { CallChannel } from './active-calls.js';
import { callChannel } from './call-channel.js';
import { askToolName } from './exposed-agents.js';
import { listParticipants, listSessions, NoInputSchema, readConversation, ReadConversationInputSchema } from './session-tools.js';
import type { ServeContext } from './serve-context.js';
import { toolError } from './tool-results.js';

/** The work of a tool that may need its client's human: a tool result once done. */
type ChannelWork = (channel: CallChannel, signal: AbortSignal) => Promise<CallToolResult>;

/**
 * One MCP server over the process's one Legion (one per client connection on
 * the 2025 revisions; on 2026-07-28, one per stdio connection or per HTTP
 * request): an `ask_<agent>` tool per exposed agent, and the tools that look
 * at the workspace and answer its approvals. The era decides how a running
 * call asks its client's human: a server request (`elicitation/create`) on the
 * 2025 revisions, an `input_required` round on 2026-07-28 (see InputRounds).
 */
export function createMcpServer(context: ServeContext, era: ProtocolEra): McpServer {
  const server = new McpServer(
    { name: 'legion', title: 'Legion collective', version: context.version },
    {
      capabilities: { tools: {} },
      instructions:
        'A Legion collective of AI agents. Ask an agent with its ask_<agent> tool; the reply comes after its whole delegation tree has worked. ' +
        'Conversations are durable: name one with "conversation" to keep parallel threads. A paused result lists approvals: answer them with answer_approval if they are yours, or the human does.',
      // A retried round names its call in the state this process signed: anything else is refused before a tool runs.
      requestState: { verify: context.rounds.verify },
    },
  );
  const guarded =
    <T, R extends CallToolResult | InputRequiredResult>(work: (input: T, mcp: ServerContext) => Promise<R> | R) =>
    async (input: T, mcp: ServerContext): Promise<R | CallToolResult> => {
      try {
        return await work(input, mcp);
      } catch (error) {
        // Never a protocol error for a failure in Legion: the client's model reads the reason and can adapt.
        return toolError(errorMessage(error));
      }
    };
  /** A tool whose work may ask the client's human, in the era's way. */
  const withChannel = (tool: string, mcp: ServerContext, work: ChannelWork): Promise<CallToolResult | InputRequiredResult> =>
    era === 'modern' ? context.rounds.round(tool, mcp, work) : work(callChannel(server, mcp), mcp.mcpReq.signal);

  for (const agent of context.exposed) {
    server.registerTool(
      askToolName(agent.id),
      {
        title: `Ask ${agent.name}`,
        description: describeAgent(agent),
        inputSchema: AskInputSchema,
        annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      },
      guarded((input, mcp) =>
        withChannel(askToolName(agent.id), mcp, (channel, signal) => askAgent(context, agent, input, channel, signal)),
      ),
    );
  }
  server.registerTool(
    'list_participants',
    {
      description: 'The participants of the collective (agents, users, mocks): what each is for, and which ask_<agent> tool reaches it.',
      inputSchema: NoInputSchema,
      annotations: { readOnlyHint: true },
    },
    guarded(() => listParticipants(context)),
  );
  server.registerTool(
    'list_sessions',
    {
      description:
        'The sessions your ask_<agent> calls worked in, most recently active first (not the human\'s own, unless this server\'s caller is the human). ask_<agent> works in the latest session of the workspace unless given "session".',
      inputSchema: NoInputSchema,
      annotations: { readOnlyHint: true },
    },
    guarded(() => listSessions(context)),
  );
  server.registerTool(
    'read_conversation',
    {
      description:
        "Recent messages of a conversation your ask_<agent> calls started (yours with an agent by default), or of one delegated beneath them, by id such as coordinator__developer; newest last, a page at a time. The human's own conversations are not readable, unless this server's caller is the human.",
      inputSchema: ReadConversationInputSchema,
      annotations: { readOnlyHint: true },
    },
    guarded((input) => readConversation(context, input)),
  );
  server.registerTool(
    'list_approvals',
    {
      description: 'Tool calls waiting for approval in a session, and whether you may decide each (answer_approval) or the human must.',
      inputSchema: ListApprovalsInputSchema,
      annotations: { readOnlyHint: true },
    },
    guarded((input) => listApprovals(context, input)),
  );
  server.registerTool(
    'answer_approval',
    {
      description:
        'Approve or reject waiting tool calls you have authority over, by request id (apr_…); the paused turn then goes on and its reply is the result.',
      inputSchema: AnswerApprovalInputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    guarded((input, mcp) => withChannel('answer_approval', mcp, (channel, signal) => answerApproval(context, input, channel, signal))),
  );
  return server;
}

/** An ask tool's description, from the agent's own `description` and `useFor`. */
function describeAgent(agent: Participant): string {
  return [
    `Ask ${agent.name} (${agent.id}) of the Legion collective${agent.description ? `: ${agent.description}` : '.'}`,
    agent.useFor ? `Use for: ${agent.useFor}` : '',
    'It may delegate to other agents and run tools; the result is its reply, with the session and conversation ids and the tokens and cost of the whole delegation tree.',
  ]
    .filter((line) => line.length > 0)
    .join('\n');
}
