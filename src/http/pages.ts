import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { PROJECT_ROOT } from '../lib/project-root.js';

/**
 * The service's own web pages: the web app (`frontend/`, built by Vite into `dist/frontend` on
 * `npm install`). One `index.html` answers every client-side route of DECISIONS.md "Pages"
 * (`/book/<slug>`, `/manage/<token>`, `/payment/<outcome>` where the payment provider sends the
 * customer back, `/approvals/<id>`, `/oauth/consent`, `/calendar-sync`, `/verify-email/<token>`,
 * `/forgot-password`, `/reset-password/<token>`, `/app/...`); its
 * content-hashed files under `/assets/` are cached for a year as immutable, the HTML is
 * revalidated on every visit (never stored at all for the consent page). Any other path is the
 * normal 404 envelope.
 */

/**
 * The policy of a page that origins `frameAncestors` may frame ('none' when empty). Pages may load
 * their own scripts, styles and https/data images and talk to their own origin; nothing else.
 */
export function pageCsp(frameAncestors: readonly string[] = []): string {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'";
  return (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; " +
    `connect-src 'self'; form-action 'self'; frame-ancestors ${ancestors}; base-uri 'none'`
  );
}

/** The policy of every page no other site may frame. */
export const PAGE_CSP = pageCsp();

/** Where `npm run build:web` writes the web app. */
export const DEFAULT_FRONTEND_ROOT = join(PROJECT_ROOT, 'dist', 'frontend');

/** The web app's client-side routes: each answers its `index.html`, the router draws the page. */
export const APP_ROUTES = [
  '/book/:slug',
  '/manage/:token',
  '/payment/:outcome',
  // The approval page reads its id from the path, or from `?id=` (the older link form).
  '/approvals',
  '/approvals/:id',
  '/oauth/consent',
  '/calendar-sync',
  // The account links people are mailed, and the form that mails the reset link.
  '/verify-email/:token',
  '/forgot-password',
  '/reset-password/:token',
  '/app',
  '/app/*',
] as const;

/**
 * Pages never stored by the browser: the consent page's address carries the OAuth request
 * (state, PKCE challenge) of one signed-in person, and a copy restored from a cache would show a
 * request already decided.
 */
const NO_STORE_ROUTES: ReadonlySet<string> = new Set(['/oauth/consent']);

/** The page headers; `frameAncestors`: the origins that may frame it (none: nobody may). */
function setSecurityHeaders(reply: FastifyReply, frameAncestors: readonly string[] = []) {
  // helmet's strict API policy was written on the raw response in onRequest; a page gets its own.
  reply.raw.removeHeader('content-security-policy');
  reply.raw.removeHeader('x-frame-options');
  reply.removeHeader('x-frame-options');
  reply.headers({
    'content-security-policy': pageCsp(frameAncestors),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  // X-Frame-Options cannot name origins, and DENY would win over frame-ancestors in older browsers.
  if (frameAncestors.length === 0) reply.header('x-frame-options', 'DENY');
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

export interface PagesOptions {
  /** The built web app (tests); `dist/frontend` by default. */
  frontendRoot?: string;
  /** The origin the pages are linked at (FRONTEND_URL); loopback requests to another host name go there. */
  origin?: string;
  /**
   * The origins that may frame the booking page of `slug` (the organisation's `embedOrigins`),
   * read on every request; without it, or for an unknown slug, nobody may.
   */
  bookingPageFrameAncestors?: (slug: string) => Promise<readonly string[]>;
}

/** Host names that reach this machine's loopback interface. */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Where a page request that reached the service by another loopback host name than its own
 * origin's belongs (same path and query); undefined when it is already there. A browser keeps
 * cookies per host name: a session signed in on `localhost` is not sent to `127.0.0.1`, so a
 * link, redirect or sign-in on the other name would land signed out. Only loopback names move,
 * and only to a loopback origin: a deployment's own host names are left alone.
 */
export function loopbackRedirect(origin: string, hostname: string, url: string): string | undefined {
  const own = new URL(origin);
  if (!LOOPBACK.test(own.hostname) || !LOOPBACK.test(hostname)) return undefined;
  if (hostname.toLowerCase() === own.hostname.toLowerCase()) return undefined;
  return `${own.origin}${url}`;
}

/**
 * The API answer a page asks for first, fetched by the browser while it loads the scripts
 * (a `Link: rel=preload` header: no inline script needed), so the page does not wait for it.
 */
const PRELOADS: Partial<Record<(typeof APP_ROUTES)[number], (params: Record<string, string>) => string>> = {
  '/book/:slug': ({ slug }) => `/api/public/organisations/${encodeURIComponent(slug ?? '')}`,
};

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 12);

/**
 * The origins that may frame the booking page of `slug`. A failed read frames nothing: the page
 * still loads on the service's own origin, and no site gains a frame it was not given.
 */
async function frameAncestorsOf(
  request: FastifyRequest,
  slug: string | undefined,
  options: PagesOptions,
): Promise<readonly string[]> {
  if (!slug || !options.bookingPageFrameAncestors) return [];
  try {
    return await options.bookingPageFrameAncestors(slug);
  } catch (error) {
    request.log.error({ err: error }, 'booking page: the framing origins could not be read');
    return [];
  }
}

/**
 * `/embed.js` (frontend/public/embed.js, copied by Vite): the script a host site includes to
 * embed the booking page. Its name is fixed, so it is revalidated hourly rather than kept;
 * it is loaded by other sites, so its resource policy is `cross-origin`.
 */
async function serveEmbedScript(app: Parameters<FastifyPluginAsync>[0], root: string) {
  const path = join(root, 'embed.js');
  if (!existsSync(path)) return;
  const body = readFileSync(path);
  const gzipped = gzipSync(body, { level: 9 });
  const etag = `"${digest(body.toString('utf8'))}"`;
  app.get('/embed.js', { schema: { hide: true } }, async (request, reply) => {
    reply.headers({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      'cross-origin-resource-policy': 'cross-origin',
      vary: 'accept-encoding',
      etag,
    });
    if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    if (!/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.send(body);
    return reply.header('content-encoding', 'gzip').send(gzipped);
  });
}

/**
 * The built web app: its `index.html` at every app route, its hashed assets under `/assets/`.
 * Without a build (a checkout where `npm install` has not run) the app routes are not there,
 * which the log says once; the API is unaffected.
 */
async function serveFrontend(app: Parameters<FastifyPluginAsync>[0], root: string, options: PagesOptions) {
  const indexPath = join(root, 'index.html');
  if (!existsSync(indexPath)) {
    app.log.warn({ root }, 'web app not built (npm run build:web): its pages are not served');
    return;
  }
  const index = readFileSync(indexPath);
  const etag = `"${createHash('sha256').update(index).digest('base64url').slice(0, 27)}"`;
  const { origin } = options;
  for (const url of APP_ROUTES) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const elsewhere = origin && loopbackRedirect(origin, request.hostname, request.url);
      if (elsewhere) return reply.redirect(elsewhere, 307);
      const params = request.params as Record<string, string>;
      const ancestors = url === '/book/:slug' ? await frameAncestorsOf(request, params.slug, options) : [];
      setSecurityHeaders(reply, ancestors);
      const preload = PRELOADS[url]?.(params);
      if (preload) reply.header('link', `<${preload}>; rel=preload; as=fetch; crossorigin=anonymous`);
      reply.type('text/html; charset=utf-8');
      if (NO_STORE_ROUTES.has(url)) return reply.header('cache-control', 'no-store').send(index);
      // A manage link's token is in the path: the page must not leave it in a shared cache.
      // The tag names the framing origins too: a changed list is a new page, not a 304 of the old one.
      const tag = ancestors.length === 0 ? etag : `${etag.slice(0, -1)}.${digest(ancestors.join(' '))}"`;
      reply.header('cache-control', 'no-cache, private').header('etag', tag);
      if (matches(request.headers['if-none-match'], tag)) return reply.code(304).send();
      return reply.send(index);
    });
  }
  await serveEmbedScript(app, root);
  const assets = join(root, 'assets');
  if (!existsSync(assets)) return;
  await app.register(async (scope) => {
    // helmet's API policy is on the reply already: the page headers replace it before sending.
    scope.addHook('onSend', async (_request, reply, payload) => {
      setSecurityHeaders(reply);
      return payload;
    });
    await scope.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      // Vite names every file by its content hash: a name never changes meaning.
      immutable: true,
      maxAge: '365d',
      decorateReply: false,
      index: false,
      wildcard: false,
      schemaHide: true,
      // The build writes .br and .gz beside each script and sheet (frontend/vite.config.ts).
      preCompressed: true,
    });
  });
}

const pages: FastifyPluginAsync<PagesOptions> = async (app, options) => {
  await serveFrontend(app, options.frontendRoot ?? DEFAULT_FRONTEND_ROOT, options);
};

export default fp(pages, { name: 'pages', dependencies: ['helmet'] });
