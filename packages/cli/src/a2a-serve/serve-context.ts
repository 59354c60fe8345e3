import type { Legion, Participant } from '@legion-collective/core';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { ActiveCalls } from '../mcp-serve/active-calls.js';

/** What every exposed agent of one `legion a2a serve` process shares. */
export interface A2aServeContext {
  legion: Legion;
  /** The user participant A2A requests come from: `mcpServe.caller`, with its approval authority. */
  caller: Participant;
  /** The work running for A2A tasks, and which conversations of the delegation trees each owns (progress, usage). */
  calls: ActiveCalls;
  /** A new call context for one request (or the server's own reads of its tasks). */
  callContext(requestedVersion?: string): ServerCallContext;
}

/**
 * Call contexts whose user is the token holder, acting as `caller`: every request has the same
 * one, so every task is in one scope of the task store (the SDK scopes tasks by user), the one
 * the tasks of an earlier run are loaded into.
 */
export function callContextsOf(caller: Participant): (requestedVersion?: string) => ServerCallContext {
  const user: User = {
    get isAuthenticated() {
      return true;
    },
    get userName() {
      return caller.id;
    },
  };
  return (requestedVersion) => new ServerCallContext({ user, ...(requestedVersion !== undefined ? { requestedVersion } : {}) });
}
