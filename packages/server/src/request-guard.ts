import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { ApiError } from './api-error.js';
import { sameToken, TOKEN_COOKIE } from './access-token.js';
import { allowedHosts, originHost } from './local-origin.js';

export interface GuardOptions {
  token: string;
  /** The address the server listens on (`127.0.0.1` unless `--host`). */
  host: string;
  /** The port, known once listening. */
  port(): number;
}

/** The token of a request: `Authorization: Bearer T`, or the cookie `GET /?token=T` set. */
export function requestToken(header: string | undefined, cookie: string | undefined): string | undefined {
  const bearer = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
  return bearer ?? cookie;
}

/**
 * Checks every request before anything else runs: the `Host` must be this server's (a page on
 * another site that re-points its DNS name at 127.0.0.1 arrives with its own name), an `Origin`
 * must be this server's (no cross-site page may call it), `/api/*` needs the token, and a request
 * that changes state must be JSON (a cross-site form cannot send that without a CORS preflight,
 * which this server never grants).
 */
export function requestGuard(options: GuardOptions): MiddlewareHandler {
  let cached: { port: number; hosts: Set<string> } | undefined;
  const hosts = (): Set<string> => {
    const port = options.port();
    if (cached?.port !== port) cached = { port, hosts: allowedHosts(options.host, port) };
    return cached.hosts;
  };
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (!host || !hosts().has(host)) {
      throw new ApiError(
        421,
        'wrong_host',
        `This server answers requests to ${[...hosts()].join(', ')}, not to "${host ?? '(no Host header)'}". Open the URL legion serve printed.`,
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !hosts().has(originHost(origin))) {
      throw new ApiError(
        403,
        'forbidden_origin',
        `Requests from the page at ${origin} are refused: only pages this server serves may call it. Open the URL legion serve printed.`,
      );
    }
    if (c.req.path.startsWith('/api/') || c.req.path === '/api') {
      if (!sameToken(requestToken(c.req.header('authorization'), getCookie(c, TOKEN_COOKIE)), options.token)) {
        throw new ApiError(
          401,
          'unauthorized',
          'This request has no valid access token. Open the URL legion serve printed (it carries ?token=…), or send the header "Authorization: Bearer <token>".',
        );
      }
      if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) {
        const type = c.req.header('content-type') ?? '';
        if (!/^application\/json\s*(;|$)/i.test(type)) {
          throw new ApiError(
            415,
            'unsupported_media_type',
            `${c.req.method} ${c.req.path} takes a JSON body: send it with "Content-Type: application/json" (this request had "${type || 'no content type'}").`,
          );
        }
      }
    }
    await next();
  };
}
