import type { ServerContext } from '@modelcontextprotocol/server';

/**
 * Sends `notifications/progress` for the request when its client asked for
 * progress (a `progressToken` in `_meta`); otherwise nothing. A notification
 * that cannot be sent (the client went away) is dropped: progress is advice.
 */
export function progressOf(context: ServerContext): (message: string) => void {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let step = 0;
  return (message) => {
    step += 1;
    context.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, message } })
      .catch(() => undefined);
  };
}
