import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { PROJECT_ROOT } from '../lib/project-root.js';

/**
 * The service's own web pages. Two sources:
 *
 * - The web app (`frontend/`, built by Vite into `dist/frontend` on `npm install`): one
 *   `index.html` answers every client-side route of DECISIONS.md "Pages" (`/book/<slug>`,
 *   `/manage/<token>`, `/app/...`, and `/payment/<outcome>` where the
 *   payment provider sends the customer back); its content-hashed files under `/assets/` are
 *   cached for a year as immutable, the HTML is revalidated on every visit.
 * - Static pages under `web/` (the OAuth consent page and the calendar-sync landing), read
 *   once at start.
 *
 * Mapping: `web/<dir>/<name>.html` is the page `/<dir>/<name>` (`index.html` is its folder's
 * path, so `web/calendar-sync/index.html` or `web/calendar-sync.html` is `/calendar-sync`);
 * every other file with a known type keeps its path (`web/oauth/consent.js` is
 * `/oauth/consent.js`). Anything else under `web/` (dotfiles, notes) is never served, and an
 * unknown path is the normal 404 envelope.
 */

/** Pages may load their own scripts, styles and https/data images and talk to their own origin; nothing else. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.txt': 'text/plain; charset=utf-8',
};

export const DEFAULT_WEB_ROOT = join(PROJECT_ROOT, 'web');
/**
 * Further paths of a static page under `web/`: the approval page reads its id from
 * `/approvals/<id>` (DECISIONS.md "Pages") as well as from `/approvals?id=<id>`.
 */
const STATIC_PAGE_PATHS: Record<string, string[]> = { '/approvals': ['/approvals/:id'] };

/** Where `npm run build:web` writes the web app. */
export const DEFAULT_FRONTEND_ROOT = join(PROJECT_ROOT, 'dist', 'frontend');

/** The web app's client-side routes: each answers its `index.html`, the router draws the page. */
export const APP_ROUTES = ['/book/:slug', '/manage/:token', '/payment/:outcome', '/app', '/app/*'] as const;

export interface StaticFile {
  /** The URL path it is served at. */
  url: string;
  contentType: string;
  body: Buffer;
  etag: string;
  isPage: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Every servable file under `root`, with the URL path it is served at. */
export function loadStaticFiles(root: string): StaticFile[] {
  return filesUnder(root).flatMap((path) => {
    const ext = extname(path).toLowerCase();
    const contentType = CONTENT_TYPES[ext];
    if (!contentType) return [];
    const rel = relative(root, path).split(sep).join('/');
    const isPage = ext === '.html';
    let url = `/${rel}`;
    if (isPage) url = url.replace(/(^|\/)index\.html$/, '$1').replace(/\.html$/, '') || '/';
    if (url.length > 1) url = url.replace(/\/$/, '');
    const body = readFileSync(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return [{ url, contentType, body, etag, isPage }];
  });
}

function setSecurityHeaders(reply: FastifyReply) {
  // helmet's strict API policy was written on the raw response in onRequest; a page gets its own.
  reply.raw.removeHeader('content-security-policy');
  reply.raw.removeHeader('x-frame-options');
  reply.headers({
    'content-security-policy': PAGE_CSP,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

export interface PagesOptions {
  /** The folder to serve (tests); `web/` at the repository root by default. */
  root?: string;
  /** The built web app (tests); `dist/frontend` by default. */
  frontendRoot?: string;
}

/**
 * The API answer a page asks for first, fetched by the browser while it loads the scripts
 * (a `Link: rel=preload` header: no inline script needed), so the page does not wait for it.
 */
const PRELOADS: Partial<Record<(typeof APP_ROUTES)[number], (params: Record<string, string>) => string>> = {
  '/book/:slug': ({ slug }) => `/api/public/organisations/${encodeURIComponent(slug ?? '')}`,
};

/**
 * The built web app: its `index.html` at every app route, its hashed assets under `/assets/`.
 * Without a build (a checkout where `npm install` has not run) the app routes are not there,
 * which the log says once; the API is unaffected.
 */
async function serveFrontend(app: Parameters<FastifyPluginAsync>[0], root: string) {
  const indexPath = join(root, 'index.html');
  if (!existsSync(indexPath)) {
    app.log.warn({ root }, 'web app not built (npm run build:web): its pages are not served');
    return;
  }
  const index = readFileSync(indexPath);
  const etag = `"${createHash('sha256').update(index).digest('base64url').slice(0, 27)}"`;
  for (const url of APP_ROUTES) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      setSecurityHeaders(reply);
      const preload = PRELOADS[url]?.(request.params as Record<string, string>);
      if (preload) reply.header('link', `<${preload}>; rel=preload; as=fetch; crossorigin=anonymous`);
      // A manage link's token is in the path: the page must not leave it in a shared cache.
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache, private')
        .header('etag', etag);
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(index);
    });
  }
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
  await serveFrontend(app, options.frontendRoot ?? DEFAULT_FRONTEND_ROOT);
  for (const file of loadStaticFiles(options.root ?? DEFAULT_WEB_ROOT)) {
    const urls = [file.url, ...(file.isPage ? (STATIC_PAGE_PATHS[file.url] ?? []) : [])];
    for (const url of urls)
      app.get(url, { schema: { hide: true } }, async (request, reply) => {
        setSecurityHeaders(reply);
        reply.type(file.contentType);
        if (file.isPage) {
          // The consent page carries OAuth parameters in its URL and shows per-user data.
          return reply.header('cache-control', 'no-store').send(file.body);
        }
        // Asset names carry no content hash: browsers revalidate, an unchanged file is a 304.
        reply.header('cache-control', 'no-cache').header('etag', file.etag);
        if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
        return reply.send(file.body);
      });
  }
};

export default fp(pages, { name: 'pages', dependencies: ['helmet'] });
