import type { Hono } from 'hono';
import { LegionError } from '@legion-collective/core';
import { conversationId as conversationIdOf } from '@legion-collective/core/internal';
import { ApiError } from '../api-error.js';
import type { ServerContext } from '../server-context.js';
import { jsonRoute } from './define-routes.js';
import { sessionOf } from './session-routes.js';

export function turnRoutes(app: Hono, server: ServerContext): void {
  const { legion, turns } = server;

  jsonRoute(app, server, 'send', async (_server, { params, body }) => {
    const session = await sessionOf(legion, params['id']!);
    const { collective } = legion;
    const from = body.from ?? collective.defaultUser()?.id;
    if (!from) throw new ApiError(400, 'bad_request', 'The collective has no user participant to send from: add one, or give "from".');
    const sender = collective.get(from);
    if (!sender || sender.status === 'retired')
      throw new ApiError(404, 'not_found', `No participant "${from}" to send from. Known participants: ${collective.ids().join(', ')}.`);
    if (sender.type !== 'user')
      throw new ApiError(
        400,
        'bad_request',
        `"${from}" is ${sender.type === 'agent' ? 'an agent' : 'a mock'}: the browser sends as a user. Leave "from" out to send as ${collective.defaultUser()?.id ?? 'the user'}.`,
      );
    let to: string;
    try {
      to = body.to ?? legion.entryAgentId();
    } catch (error) {
      throw new ApiError(400, 'bad_request', `There is no agent to send to: ${error instanceof Error ? error.message : String(error)}`);
    }
    const recipient = collective.get(to);
    if (!recipient || recipient.status === 'retired')
      throw new ApiError(404, 'not_found', `No participant "${to}" to send to. Known participants: ${collective.ids().join(', ')}.`);
    let conversationId: string;
    try {
      conversationId = conversationIdOf({ initiator: from, responder: to, name: body.conversation });
    } catch (error) {
      throw new ApiError(400, 'bad_request', error instanceof LegionError ? error.message : String(error));
    }
    // Refused now, with the size and the limit, rather than answered 202 and refused later as an event.
    // (core's error; jsonRoute makes message_too_large a 400)
    session.checkSend({ from, to, message: body.text });
    // One message at a time per conversation: a turn running here or in another process makes this one wait, so say so now.
    // Claimed before the await, so that of two messages arriving together the second is refused too.
    const busy = (): ApiError =>
      new ApiError(
        409,
        'conversation_busy',
        `Conversation "${conversationId}" is busy with another message. Wait for its turn to end (or cancel it), or send in a conversation of another name to work in parallel.`,
      );
    const claim = turns.claim(session.id, conversationId);
    if (!claim) throw busy();
    try {
      if (await session.turnIsLive(conversationId)) throw busy();
    } catch (error) {
      claim.release();
      throw error;
    }
    claim.send(session, { from, to, text: body.text, conversation: body.conversation });
    return { accepted: true as const, conversationId };
  });

  jsonRoute(app, server, 'cancel', async (_server, { params, body }) => {
    const session = await sessionOf(legion, params['id']!);
    return { cancelled: turns.cancel(session.id, body.conversationId) };
  });
}
