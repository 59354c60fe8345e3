import type { Legion, Participant } from '@legion-collective/core';
import type { ActiveCalls } from './active-calls.js';

/** What every MCP connection of one `legion mcp serve` process shares. */
export interface ServeContext {
  legion: Legion;
  /** The user participant MCP requests come from (`mcpServe.caller`). */
  caller: Participant;
  /** The agents offered as `ask_<id>` tools, in order. */
  exposed: readonly Participant[];
  calls: ActiveCalls;
  version: string;
}
