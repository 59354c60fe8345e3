import type { Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';
import { createCreateAgentTool } from './create-agent.js';
import { createGetParticipantTool } from './get-participant.js';
import { createListConversationsTool } from './list-conversations.js';
import { createListSessionsTool } from './list-sessions.js';
import { createListToolsTool } from './list-tools.js';
import { createModifyAgentTool } from './modify-agent.js';
import { createRetireAgentTool } from './retire-agent.js';
import { createSearchHistoryTool } from './search-history.js';

/** The collective family beside `list_participants`: looking up, changing and searching the team and its sessions. */
export function createCollectiveTools(options: CollectiveToolsOptions): Tool[] {
  return [
    createGetParticipantTool(options),
    createCreateAgentTool(options),
    createModifyAgentTool(options),
    createRetireAgentTool(options),
    createListToolsTool(options),
    createListSessionsTool(options),
    createListConversationsTool(options),
    createSearchHistoryTool(options),
  ];
}
