import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { ApiError } from './api-error.js';
import { openApiDocument } from './openapi.js';
import { requestGuard } from './request-guard.js';
import { honoPath, ROUTES } from './route-table.js';
import type { ServerContext } from './server-context.js';
import { staticRoutes } from './static-routes.js';
import { answerRoutes } from './routes/answer-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { turnRoutes } from './routes/turn-routes.js';
import { workspaceRoutes } from './routes/workspace-routes.js';

export interface AppOptions {
  token: string;
  host: string;
  port(): number;
  staticDir: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Origins allowed to frame the app (CSP frame-ancestors); default none. */
  frameAncestors?: readonly string[] | undefined;
}

/** The Hono app: the guard, the API of `ROUTES`, the browser app's files; every error as `{ error: { code, message } }`. */
export function createApp(server: ServerContext, options: AppOptions): Hono {
  const app = new Hono();
  app.onError((error, context) => {
    if (error instanceof ApiError) return context.json(error.body(), error.status);
    // An error of ours, not of the request: said plainly, without a stack.
    server.legion.events.emit('error:raised', { scope: `legion serve: ${context.req.method} ${context.req.path}`, message: error.message });
    return context.json(
      {
        error: {
          code: 'internal',
          message: `The server failed on ${context.req.method} ${context.req.path}: ${error.message}. Its events (error:raised) say more; please report it if it repeats.`,
        },
      },
      500,
    );
  });
  app.notFound((context) => {
    const path = context.req.path;
    const message = path.startsWith('/api/')
      ? `There is no ${context.req.method} ${path}. The routes are listed in /api/openapi.json.`
      : `There is no file ${path}.`;
    return context.json({ error: { code: 'not_found', message } }, 404);
  });
  // Defence in depth for a page that shows what models wrote and has buttons that run tools: no script
  // but the app's own files, no framing by another site (a click on "Approve" through an invisible frame),
  // no referrer (the first URL carries the token), no content-type sniffing. Every response, errors included.
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: options.frameAncestors?.length ? [...options.frameAncestors] : ["'none'"],
      },
      // X-Frame-Options knows no list of origins: with frame-ancestors given, CSP alone decides.
      xFrameOptions: options.frameAncestors?.length ? false : 'DENY',
      referrerPolicy: 'no-referrer',
    }),
  );
  app.use('*', requestGuard({ token: options.token, host: options.host, port: options.port }));
  const document = openApiDocument(server.version);
  app.get(honoPath(ROUTES.openapi.path), (context) => context.json(document));
  workspaceRoutes(app, server, options.env);
  sessionRoutes(app, server);
  turnRoutes(app, server);
  answerRoutes(app, server);
  eventRoutes(app, server);
  staticRoutes(app, { token: options.token, staticDir: options.staticDir });
  return app;
}
