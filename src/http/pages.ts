import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { PROJECT_ROOT } from '../lib/project-root.js';

/**
 * The service's own web pages (the OAuth consent page, later the calendar-sync landing),
 * served from static files under `web/`, read once at start.
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
}

const pages: FastifyPluginAsync<PagesOptions> = async (app, options) => {
  for (const file of loadStaticFiles(options.root ?? DEFAULT_WEB_ROOT)) {
    app.get(file.url, { schema: { hide: true } }, async (request, reply) => {
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
