import type { Legion, Participant } from '@legion-collective/core';
import type { ActiveCalls } from './active-calls.js';
import type { InputRounds } from './input-rounds.js';

/** What every MCP connection of one `legion mcp serve` process shares. */
export interface ServeContext {
  legion: Legion;
  /** The user participant MCP requests come from (`mcpServe.caller`). */
  caller: Participant;
  /** The agents offered as `ask_<id>` tools, in order. */
  exposed: readonly Participant[];
  calls: ActiveCalls;
  /** The calls of 2026-07-28 clients that wait, between rounds, on their human's answer. */
  rounds: InputRounds;
  version: string;
}
