import { z } from 'zod';
import type { HttpCall } from './http.js';
import type { CalendarProviderPort, Channel } from './port.js';
import type { GraphClient } from './provider-b.js';

/** Graph's longest subscription on Outlook events was 4230 minutes; staying under it works everywhere. */
export const MAX_CHANNEL_TTL_SECONDS = 4230 * 60;

const enc = encodeURIComponent;

const subscriptionJson = z.object({ id: z.string().min(1), expirationDateTime: z.string().optional() });

/** The end to ask for: `ttlSeconds` from now, within Graph's longest. */
const expiryFor = (ttlSeconds: number) =>
  new Date(Date.now() + Math.min(ttlSeconds, MAX_CHANNEL_TTL_SECONDS) * 1000).toISOString();

/** The channel a subscription answer names; its end as Graph granted it, else as asked. */
const channelOf = (subscription: z.infer<typeof subscriptionJson>, expires: string): Channel => ({
  channelId: subscription.id,
  resourceId: null,
  expiresAt: subscription.expirationDateTime
    ? new Date(subscription.expirationDateTime).toISOString()
    : expires,
});

/** Push: Graph subscriptions with a clientState, extended in place before they lapse. */
export function graphSubscriptions({
  api,
  http,
  calls: { check, apiCall, parse },
}: GraphClient): Pick<CalendarProviderPort, 'watch' | 'renewWatch' | 'stopWatch'> {
  return {
    async watch(accessToken, { calendarId, address, secret, ttlSeconds }) {
      const expires = expiryFor(ttlSeconds);
      const call: HttpCall = {
        method: 'POST',
        url: `${api}/subscriptions`,
        bearer: accessToken,
        json: {
          changeType: 'created,updated,deleted',
          notificationUrl: address,
          resource: `/me/calendars/${calendarId}/events`,
          expirationDateTime: expires,
          clientState: secret,
        },
      };
      const subscription = parse(subscriptionJson, await apiCall(call), call);
      return channelOf(subscription, expires);
    },

    async renewWatch(accessToken, channel, ttlSeconds) {
      const expires = expiryFor(ttlSeconds);
      const call: HttpCall = {
        method: 'PATCH',
        url: `${api}/subscriptions/${enc(channel.channelId)}`,
        bearer: accessToken,
        json: { expirationDateTime: expires },
      };
      const answer = await http(call);
      if (answer.status === 404) return null;
      const subscription = parse(subscriptionJson, check(call, answer), call);
      return channelOf(subscription, expires);
    },

    async stopWatch(accessToken, { channelId }) {
      const call: HttpCall = {
        method: 'DELETE',
        url: `${api}/subscriptions/${enc(channelId)}`,
        bearer: accessToken,
      };
      const answer = await http(call);
      if (answer.status === 404) return;
      check(call, answer);
    },
  };
}
