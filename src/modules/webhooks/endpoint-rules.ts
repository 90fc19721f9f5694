import { lookup } from 'node:dns/promises';
import { invalidField } from '../../lib/errors.js';
import { ipLiteralOf, isPublicAddress } from '../../lib/public-address.js';
import { isEventType, URL_MAX } from './schemas.js';

/**
 * The rules of an endpoint URL (https, length, a public address): the URL, or a 400 naming why.
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) lets http and private addresses through.
 */
export async function checkedUrl(text: string, allowPrivate: boolean): Promise<string> {
  const refuse = (message: string) => invalidField('url', message);
  if (text.length > URL_MAX) throw refuse(`must be at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not contain user information');
  if (url.hash || text.includes('#')) throw refuse('must not contain a fragment');
  if (!allowPrivate) {
    const literal = ipLiteralOf(url);
    if (literal) {
      if (!isPublicAddress(literal)) throw refuse('must be on a public address');
    } else {
      let addresses: Array<{ address: string }>;
      try {
        addresses = await lookup(url.hostname, { all: true, verbatim: true });
      } catch {
        throw refuse('its host does not resolve');
      }
      if (addresses.length === 0) throw refuse('its host does not resolve');
      if (addresses.some((a) => !isPublicAddress(a.address)))
        throw refuse('must resolve to public addresses only');
    }
  }
  return url.toString();
}

/** The event types an endpoint subscribes to: known ones, each once; a 400 naming the unknown. */
export function checkedEvents(events: readonly string[]): string[] {
  const unknown = events.filter((type) => !isEventType(type));
  if (unknown.length > 0) throw invalidField('events', `unknown event type(s): ${unknown.join(', ')}`);
  return [...new Set(events)];
}

/** An empty description is none. */
export const normalDescription = (text: string | null | undefined) => (text ? text : null);
