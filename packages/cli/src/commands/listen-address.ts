import { LegionError } from '@legion-collective/core';

/** Addresses only this machine reaches: a server bound elsewhere warns that other machines can reach it. */
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** `--port N` of `legion serve` and `legion mcp serve`: 0 (any free port) when not given. */
export function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new LegionError('usage', `--port ${text} is not a port: give a number from 1 to 65535 (or 0 for any free one).`);
  return port;
}
