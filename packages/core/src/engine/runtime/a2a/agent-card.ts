import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { errorMessage, LegionError } from '../../../kernel/index.js';
import { expandEnvReferences } from '../../../tools/index.js';
import type { RemoteAgentSettings } from '../../../team/index.js';
import { createRemoteFetch } from './remote-fetch.js';

/** The largest agent card Legion reads: a card lists skills and interfaces, and does not grow with the work. */
const CARD_MAX_BYTES = 1_048_576;

/** How Legion reaches remote agents: credentials by origin (global config), and the bounds on what comes back. */
export interface RemoteAccess {
  remoteAgents: Readonly<Record<string, RemoteAgentSettings>>;
  env: NodeJS.ProcessEnv;
  maxResponseBytes: number;
  maxStreamBytes: number;
  idleTimeoutMs: number;
  /** Ends every request made with this access (the turn's signal, for reading the card). */
  signal?: AbortSignal | undefined;
}

/** What `legion agents add --a2a` and `legion doctor` show of a card. */
export interface AgentCardSummary {
  name: string;
  description: string;
  version: string;
  streaming: boolean;
  skills: Array<{ id: string; name: string; description: string }>;
}

export function remoteFetch(access: RemoteAccess): typeof fetch {
  const headersByOrigin: Record<string, Record<string, string>> = {};
  for (const [origin, settings] of Object.entries(access.remoteAgents))
    headersByOrigin[origin] = expandEnvReferences(settings.headers, access.env, `remoteAgents.${origin}`);
  return createRemoteFetch({
    headersByOrigin,
    maxResponseBytes: access.maxResponseBytes,
    maxStreamBytes: access.maxStreamBytes,
    idleTimeoutMs: access.idleTimeoutMs,
    signal: access.signal,
  });
}

/**
 * An A2A client for the agent the card at `cardUrl` describes. The SDK is loaded on first use: a
 * collective without remote agents never pays for it.
 */
export async function connectRemoteAgent(
  cardUrl: string,
  access: RemoteAccess,
  signal: AbortSignal,
): Promise<{ client: Client; card: AgentCard }> {
  // The card is read under the turn's signal; the client's requests are not, or a cancelled turn could not send its cancel.
  const card = await readAgentCard(cardUrl, { ...access, signal });
  const sdk = await import('@a2a-js/sdk/client');
  const fetchImpl = remoteFetch(access);
  const factory = new sdk.ClientFactory(
    sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
      transports: [new sdk.JsonRpcTransportFactory({ fetchImpl }), new sdk.RestTransportFactory({ fetchImpl })],
    }),
  );
  try {
    return { client: await factory.createFromAgentCard(card), card };
  } catch (error) {
    throw new LegionError(
      'remote_unreachable',
      `The agent card at ${cardUrl} offers no interface Legion can use: ${cut(errorMessage(error))}`,
    );
  }
}

/** Fetches and checks the card at `cardUrl` (the whole URL, not a base to add the well-known path to). */
export async function readAgentCard(cardUrl: string, access: RemoteAccess): Promise<AgentCard> {
  const url = URL.canParse(cardUrl) ? new URL(cardUrl) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new LegionError('remote_url_refused', `"${cut(cardUrl)}" is not an http or https URL of an agent card.`);
  const sdk = await import('@a2a-js/sdk/client');
  const resolver = new sdk.DefaultAgentCardResolver({ fetchImpl: remoteFetch({ ...access, maxResponseBytes: CARD_MAX_BYTES }) });
  let card: AgentCard;
  try {
    card = await resolver.resolve(cardUrl, '');
  } catch (error) {
    if (error instanceof LegionError) throw error;
    throw new LegionError('remote_unreachable', `Could not read the agent card at ${cardUrl}: ${cut(errorMessage(error))}`);
  }
  if (
    typeof card?.name !== 'string' ||
    card.name.trim() === '' ||
    !Array.isArray(card.supportedInterfaces) ||
    card.supportedInterfaces.length === 0
  )
    throw new LegionError(
      'remote_unreachable',
      `${cardUrl} is not an A2A agent card: it needs a "name" and at least one of "supportedInterfaces".`,
    );
  for (const entry of card.supportedInterfaces) {
    const target = URL.canParse(entry.url) ? new URL(entry.url) : undefined;
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:'))
      throw new LegionError(
        'remote_url_refused',
        `The agent card at ${cardUrl} names an interface URL that is not http or https: "${cut(entry.url)}".`,
      );
  }
  return card;
}

export function summarizeCard(card: AgentCard): AgentCardSummary {
  return {
    name: card.name,
    description: card.description ?? '',
    version: card.version ?? '',
    streaming: card.capabilities?.streaming === true,
    skills: (card.skills ?? []).map((skill) => ({ id: skill.id, name: skill.name, description: skill.description ?? '' })),
  };
}

/** Reads the card at `cardUrl` for a person to look at (`legion agents add --a2a`, `legion doctor --probe`). */
export async function describeRemoteAgent(cardUrl: string, access: RemoteAccess): Promise<AgentCardSummary> {
  return summarizeCard(await readAgentCard(cardUrl, access));
}

/** A remote's words in an error are bounded: a hostile server could put megabytes there. */
export function cut(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
