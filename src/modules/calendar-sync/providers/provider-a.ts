import { DateTime } from 'luxon';
import { z } from 'zod';
import type { CalendarProviderSettings } from '../../../config.js';
import type { Reminder } from '../../events/schemas.js';
import { createProviderHttp, describe, type HttpCall, providerCalls } from './http.js';
import {
  CalendarProviderError,
  type CalendarProviderPort,
  type ChangePage,
  type EventWrite,
  type ExternalEvent,
  type ExternalTime,
  NotFoundAtProviderError,
  SyncTokenExpiredError,
} from './port.js';

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

const gTime = z.object({
  date: z.string().optional(),
  dateTime: z.string().optional(),
  timeZone: z.string().optional(),
});
type GTime = z.infer<typeof gTime>;

const gReminder = z.object({ method: z.string(), minutes: z.number() });

const gEvent = z.object({
  id: z.string().min(1),
  etag: z.string().optional(),
  status: z.string().optional(),
  summary: z.string().nullish(),
  description: z.string().nullish(),
  location: z.string().nullish(),
  start: gTime.optional(),
  end: gTime.optional(),
  recurrence: z.array(z.string()).nullish(),
  recurringEventId: z.string().optional(),
  transparency: z.string().nullish(),
  originalStartTime: gTime.optional(),
  reminders: z
    .object({ useDefault: z.boolean().optional(), overrides: z.array(gReminder).optional() })
    .optional(),
});
type GEvent = z.infer<typeof gEvent>;

const eventsPage = z.object({
  timeZone: z.string().optional(),
  defaultReminders: z.array(gReminder).optional(),
  nextPageToken: z.string().optional(),
  nextSyncToken: z.string().optional(),
  items: z.array(z.unknown()).optional(),
});

const calendarListPage = z.object({
  nextPageToken: z.string().optional(),
  items: z
    .array(
      z.object({
        id: z.string().min(1),
        summary: z.string().nullish(),
        summaryOverride: z.string().nullish(),
        primary: z.boolean().optional(),
        timeZone: z.string().optional(),
        deleted: z.boolean().optional(),
      }),
    )
    .optional(),
});

const channelJson = z.object({
  id: z.string().min(1),
  resourceId: z.string().optional(),
  expiration: z.union([z.string(), z.number()]).optional(),
});

function toReminders(list: z.infer<typeof gReminder>[]): Reminder[] {
  // Google still lists the retired `sms` method on old events; it has no local counterpart.
  return list.flatMap(({ method, minutes }) =>
    method === 'email' || method === 'popup' ? [{ method, minutes }] : [],
  );
}

function toTime(time: GTime | undefined): ExternalTime {
  if (time?.date) return { date: time.date };
  if (time?.dateTime) {
    const parsed = DateTime.fromISO(time.dateTime, { zone: time.timeZone ?? 'utc' });
    if (parsed.isValid) return { instant: parsed.toUTC().toISO()! };
  }
  return { instant: new Date(0).toISOString() };
}

function toEvent(item: GEvent, defaults: Reminder[]): ExternalEvent {
  const cancelled = item.status === 'cancelled';
  let reminders: Reminder[] | null = null;
  if (item.reminders)
    reminders = item.reminders.useDefault ? defaults : toReminders(item.reminders.overrides ?? []);
  return {
    externalId: item.id,
    etag: item.etag ?? null,
    cancelled,
    seriesId: item.recurringEventId ?? null,
    originalStart: item.originalStartTime ? toTime(item.originalStartTime) : null,
    seriesMasterId: null,
    title: item.summary ?? '',
    description: item.description ?? null,
    location: item.location ?? null,
    allDay: Boolean(item.start?.date),
    start: toTime(item.start),
    end: toTime(item.end),
    timezone: item.start?.timeZone ?? null,
    recurrence: item.recurrence && item.recurrence.length > 0 ? item.recurrence : null,
    reminders,
    // Google's default (absent) is opaque: busy.
    transparency: item.transparency === 'transparent' ? 'transparent' : 'opaque',
  };
}

/** Local values to Google's event resource; only the fields the service owns (PATCH leaves the rest). */
function toGoogle(event: EventWrite): Record<string, unknown> {
  const zone = event.timezone;
  const time = (iso: string) =>
    event.allDay
      ? { date: DateTime.fromISO(iso, { zone }).toISODate(), dateTime: null, timeZone: zone }
      : { dateTime: iso, date: null, timeZone: zone };
  return {
    summary: event.title,
    description: event.description ?? '',
    location: event.location ?? '',
    start: time(event.startTime),
    end: time(event.endTime),
    ...(event.transparency ? { transparency: event.transparency } : {}),
    // Never cleared from here: a series this service could only import as its first occurrence
    // (an hourly rule), or a moved occurrence, must not lose its rule through a local edit.
    ...(event.recurrence ? { recurrence: event.recurrence } : {}),
    ...(event.reminders
      ? {
          reminders: {
            useDefault: false,
            overrides: event.reminders.map(({ method, minutes }) => ({ method, minutes })),
          },
        }
      : {}),
  };
}

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
