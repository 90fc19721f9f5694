import type { CalendarProviderSettings } from '../../../config.js';
import { createProviderHttp, describe, type HttpCall, providerCalls } from './http.js';
import {
  CalendarProviderError,
  type CalendarProviderPort,
  type ChangePage,
  type ExternalEvent,
  NotFoundAtProviderError,
  SyncTokenExpiredError,
} from './port.js';
import {
  calendarListPage,
  channelJson,
  eventsPage,
  gEvent,
  toEvent,
  toGoogle,
  toReminders,
} from './provider-a-events.js';

/**
 * Adapter for `calendar_provider_a`: the Google Calendar API v3 and Google's OAuth 2.0
 * endpoints (authorization code with PKCE, offline access for a refresh token, token
 * revocation). Sync uses events.list with syncToken/nextSyncToken; push uses events.watch
 * channels; writes use PATCH with If-Match so a concurrent change answers 412.
 */

const LABEL = 'calendar_provider_a';
const SCOPE = 'https://www.googleapis.com/auth/calendar';
/** Google's largest page of events.list. */
const PAGE_SIZE = 2500;
/** Google's default (and usual maximum) lifetime of an events.watch channel: 7 days. */
const MAX_CHANNEL_TTL_SECONDS = 604_800;

export interface ProviderAdapterOptions {
  settings: CalendarProviderSettings;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export function createProviderA({
  settings,
  timeoutMs,
  fetch,
}: ProviderAdapterOptions): CalendarProviderPort {
  const api = settings.apiBase;
  const http = createProviderHttp({
    label: LABEL,
    timeoutMs,
    allowedOrigins: [api, settings.tokenUrl, ...(settings.revokeUrl ? [settings.revokeUrl] : [])],
    ...(fetch ? { fetch } : {}),
  });
  const enc = encodeURIComponent;

  const { check, apiCall, parse, token: callTokenEndpoint } = providerCalls(LABEL, http, [404]);
  const token = (form: Record<string, string>, refreshing: boolean) =>
    callTokenEndpoint(
      settings.tokenUrl,
      { ...form, client_id: settings.clientId, client_secret: settings.clientSecret },
      refreshing,
      ['invalid_grant', 'unauthorized_client'],
    );

  const eventUrl = (calendarId: string, externalId: string) =>
    `${api}/calendars/${enc(calendarId)}/events/${enc(externalId)}`;
  const ifMatch = (etag: string | null): Record<string, string> => (etag ? { 'if-match': etag } : {});

  return {
    id: 'calendar_provider_a',
    windowed: false,
    maxChannelTtlSeconds: MAX_CHANNEL_TTL_SECONDS,
    clientChannelIds: true,

    authorizationUrl({ state, codeChallenge, redirectUri }) {
      const url = new URL(settings.authUrl);
      url.search = new URLSearchParams({
        client_id: settings.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: SCOPE,
        // A refresh token, every time: offline access, and consent asked again on reconnect.
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.toString();
    },

    exchangeCode({ code, codeVerifier, redirectUri }) {
      return token(
        { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri },
        false,
      );
    },

    refresh(refreshToken) {
      return token({ grant_type: 'refresh_token', refresh_token: refreshToken }, true);
    },

    async revoke(tokenValue) {
      if (!settings.revokeUrl) return;
      const call: HttpCall = { method: 'POST', url: settings.revokeUrl, form: { token: tokenValue } };
      const answer = await http(call);
      // 400 invalid_token: already revoked or expired, which is what we wanted.
      if (answer.status !== 200 && answer.status !== 400)
        throw new CalendarProviderError(
          'error',
          describe(LABEL, { ...call, form: {} }, answer),
          answer.status,
        );
    },

    async listCalendars(accessToken) {
      const calendars = [];
      let pageToken: string | undefined;
      do {
        const url = new URL(`${api}/users/me/calendarList`);
        url.searchParams.set('maxResults', '250');
        if (pageToken) url.searchParams.set('pageToken', pageToken);
        const call: HttpCall = { method: 'GET', url: url.toString(), bearer: accessToken };
        const page = parse(calendarListPage, await apiCall(call), call);
        for (const item of page.items ?? []) {
          if (item.deleted) continue;
          calendars.push({
            externalId: item.id,
            name: item.summaryOverride || item.summary || item.id,
            primary: item.primary === true,
            timezone: item.timeZone ?? null,
          });
        }
        pageToken = page.nextPageToken;
      } while (pageToken);
      return calendars;
    },

    async listChanges(accessToken, { calendarId, syncToken, onPage }) {
      let pageToken: string | undefined;
      for (;;) {
        const url = new URL(`${api}/calendars/${enc(calendarId)}/events`);
        url.searchParams.set('maxResults', String(PAGE_SIZE));
        // A full listing leaves out deleted events, except cancelled occurrences of live
        // series (Google includes those while singleEvents is false); an incremental one
        // always includes deletions.
        if (syncToken) url.searchParams.set('syncToken', syncToken);
        else url.searchParams.set('showDeleted', 'false');
        if (pageToken) url.searchParams.set('pageToken', pageToken);
        const call: HttpCall = { method: 'GET', url: url.toString(), bearer: accessToken };
        const answer = await http(call);
        if (answer.status === 410)
          throw new SyncTokenExpiredError('error', describe(LABEL, call, answer), 410);
        check(call, answer);
        const page = parse(eventsPage, answer, call);
        const defaults = toReminders(page.defaultReminders ?? []);
        const events: ExternalEvent[] = [];
        for (const raw of page.items ?? []) {
          const item = gEvent.safeParse(raw);
          if (item.success) events.push(toEvent(item.data, defaults));
        }
        const result: ChangePage = { events, timezone: page.timeZone ?? null };
        await onPage(result);
        if (page.nextPageToken) {
          pageToken = page.nextPageToken;
          continue;
        }
        if (!page.nextSyncToken)
          throw new CalendarProviderError('error', `${LABEL} events.list ended without nextSyncToken`);
        return page.nextSyncToken;
      }
    },

    async getEvent(accessToken, calendarId, externalId) {
      const call: HttpCall = { method: 'GET', url: eventUrl(calendarId, externalId), bearer: accessToken };
      const answer = await http(call);
      if (answer.status === 404 || answer.status === 410) return null;
      check(call, answer);
      const item = parse(gEvent, answer, call);
      return toEvent(item, []);
    },

    async createEvent(accessToken, calendarId, event) {
      const call: HttpCall = {
        method: 'POST',
        url: `${api}/calendars/${enc(calendarId)}/events`,
        bearer: accessToken,
        json: toGoogle(event),
      };
      return toEvent(parse(gEvent, await apiCall(call), call), []);
    },

    async updateEvent(accessToken, calendarId, externalId, event, etag) {
      const call: HttpCall = {
        method: 'PATCH',
        url: eventUrl(calendarId, externalId),
        bearer: accessToken,
        json: toGoogle(event),
        headers: ifMatch(etag),
      };
      const answer = await http(call);
      if (answer.status === 410)
        throw new NotFoundAtProviderError('error', describe(LABEL, call, answer), 410);
      check(call, answer);
      return toEvent(parse(gEvent, answer, call), []);
    },

    async deleteEvent(accessToken, calendarId, externalId, etag) {
      const call: HttpCall = {
        method: 'DELETE',
        url: eventUrl(calendarId, externalId),
        bearer: accessToken,
        headers: ifMatch(etag),
      };
      const answer = await http(call);
      // Already gone (404, or 410 "deleted"): the wanted end state.
      if (answer.status === 404 || answer.status === 410) return;
      check(call, answer);
    },

    async watch(accessToken, { calendarId, channelId, address, secret, ttlSeconds }) {
      const call: HttpCall = {
        method: 'POST',
        url: `${api}/calendars/${enc(calendarId)}/events/watch`,
        bearer: accessToken,
        json: {
          id: channelId,
          type: 'web_hook',
          address,
          token: secret,
          params: { ttl: String(Math.min(ttlSeconds, MAX_CHANNEL_TTL_SECONDS)) },
        },
      };
      const channel = parse(channelJson, await apiCall(call), call);
      const expiration = Number(channel.expiration);
      return {
        channelId: channel.id,
        resourceId: channel.resourceId ?? null,
        expiresAt: new Date(
          Number.isFinite(expiration) && expiration > 0 ? expiration : Date.now() + ttlSeconds * 1000,
        ).toISOString(),
      };
    },

    // Google channels cannot be extended: the caller opens a new one and stops the old.
    async renewWatch() {
      return null;
    },

    async stopWatch(accessToken, { channelId, resourceId }) {
      const call: HttpCall = {
        method: 'POST',
        url: `${api}/channels/stop`,
        bearer: accessToken,
        json: { id: channelId, ...(resourceId ? { resourceId } : {}) },
      };
      const answer = await http(call);
      if (answer.status === 404) return;
      check(call, answer);
    },
  };
}
