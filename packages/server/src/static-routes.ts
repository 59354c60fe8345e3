import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { sameToken, TOKEN_COOKIE } from './access-token.js';

const PAGE_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#222}code{background:#f2f2f2;padding:.1em .3em}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${PAGE_STYLE}</style></head><body><h1>${title}</h1>${body}</body></html>`;
}

const NEEDS_TOKEN = page(
  'Legion: open the URL with its token',
  '<p>This page needs the access token that <code>legion serve</code> printed when it started: open the whole URL it printed, <code>http://…/?token=…</code>.</p>',
);

const NOT_BUILT = page(
  'Legion: the browser app was not built',
  '<p>The server runs and its API answers (<a href="/api/openapi.json">/api/openapi.json</a>), but the browser app was not built into this installation. Build it with <code>npm run build</code> at the root of the Legion repository, then start <code>legion serve</code> again.</p>',
);

/**
 * The browser app: `GET /?token=T` trades the token for a cookie (HttpOnly, SameSite=Strict) and
 * redirects to `/`, so the token leaves the address bar and the history. The index needs the
 * cookie; the hashed assets need nothing (they hold no data) and are cached for good; any other
 * path that is no file is the app's own route and gets the index (the app routes in the browser).
 */
export function staticRoutes(app: Hono, options: { token: string; staticDir: string | undefined }): void {
  const { token, staticDir } = options;
  const indexFile = staticDir ? join(staticDir, 'index.html') : undefined;
  const index = (context: Context): Response => {
    const given = context.req.query('token');
    if (given !== undefined) {
      if (!sameToken(given, token)) return context.html(NEEDS_TOKEN, 401);
      setCookie(context, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return context.redirect('/', 302);
    }
    if (!sameToken(getCookie(context, TOKEN_COOKIE), token)) return context.html(NEEDS_TOKEN, 401);
    context.header('Cache-Control', 'no-cache');
    if (!indexFile || !existsSync(indexFile)) return context.html(NOT_BUILT, 200);
    return context.html(readFileSync(indexFile, 'utf8'), 200);
  };
  app.get('/', index);
  app.get('/index.html', index);
  if (staticDir) {
    app.use(
      '*',
      serveStatic({
        root: staticDir,
        onFound: (path, context) => {
          // Vite names built assets by their content's hash: a new build is a new name.
          context.header('Cache-Control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      }),
    );
  }
  app.get('*', (context) => {
    if (context.req.path.startsWith('/api/')) return context.notFound();
    // A path with an extension is a file that is not there, not a route of the app.
    if (/\.[a-z0-9]+$/i.test(context.req.path)) return context.notFound();
    return index(context);
  });
}
