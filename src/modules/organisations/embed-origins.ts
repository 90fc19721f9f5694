import { z } from 'zod';

/** How many origins one organisation may let frame its booking page. */
export const MAX_EMBED_ORIGINS = 10;

/**
 * Loopback host names: `http` is allowed for them (a developer's machine; browsers treat them as
 * secure contexts), every other origin must be `https`.
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `value` is not an embed origin, or the origin in its one spelling (`URL.origin`). */
function parseEmbedOrigin(value: string): { origin: string } | { problem: string } {
  if (value.includes('*')) return { problem: 'must name one origin, without a wildcard' };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return { problem: 'must be an origin: https://host or https://host:port' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'must be an origin: https://host or https://host:port' };
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return { problem: 'must be an https origin (http only for localhost, 127.0.0.1 or [::1])' };
  if (url.username || url.password) return { problem: 'must not carry a user name or password' };
  // `new URL` turns "https://a.example" into ".../": a path, query or fragment typed is refused.
  const rest = value.slice(value.indexOf('//') + 2);
  if (/[/?#]/.test(rest)) return { problem: 'must be an origin without a path, query or fragment' };
  return { origin: url.origin };
}

/**
 * `embedOrigins`: up to 10 distinct origins (`https://host[:port]`, or http on a loopback host),
 * each kept as the browser spells it (lowercase host, no default port), since that is how the
 * booking page's `frame-ancestors` and `event.origin` compare them.
 */
export const embedOriginList = z
  .array(z.string().trim().max(300, 'must be at most 300 characters'))
  .max(MAX_EMBED_ORIGINS, `at most ${MAX_EMBED_ORIGINS} origins`)
  .transform((values, context) => {
    const origins: string[] = [];
    values.forEach((value, index) => {
      const parsed = parseEmbedOrigin(value);
      if ('problem' in parsed) {
        context.addIssue({ code: 'custom', path: [index], message: parsed.problem });
        return;
      }
      if (origins.includes(parsed.origin)) {
        context.addIssue({ code: 'custom', path: [index], message: `repeats ${parsed.origin}` });
        return;
      }
      origins.push(parsed.origin);
    });
    return origins;
  })
  .describe(
    'Origins (https://host[:port]; http only for localhost, 127.0.0.1 or [::1]) whose pages may embed ' +
      'the booking page; at most 10, no path, no wildcard; [] for none',
  );

/** The stored column: a JSON array of origins; anything unreadable is no origin at all. */
export function embedOriginsOf(column: string | null | undefined): string[] {
  if (!column) return [];
  try {
    const parsed: unknown = JSON.parse(column);
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}
