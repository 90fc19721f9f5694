import { DateTime } from 'luxon';
import { z } from 'zod';
import { ianaZone, toPatternedRecurrence } from './graph-recurrence.js';
import { createProviderHttp, describe, type HttpAnswer, type HttpCall, providerCalls } from './http.js';
import {
  CalendarProviderError,
  type CalendarProviderPort,
  type EventWrite,
  type ExternalEvent,
  type ExternalTime,
  SyncTokenExpiredError,
} from './port.js';
import type { ProviderAdapterOptions } from './provider-a.js';

/**
 * Adapter for `calendar_provider_b`: Microsoft Graph v1.0 calendars and the Microsoft identity
 * platform v2 endpoints (authorization code with PKCE; refresh tokens rotate; no revocation
 * endpoint for a single grant). Sync uses calendarView/delta, following @odata.nextLink to an
 * @odata.deltaLink (the cursor); push uses subscriptions with a clientState; writes use PATCH
 * with If-Match on the event's @odata.etag.
 *
 * calendarView delta answers expanded occurrences (no series masters), within a window.
 */

const LABEL = 'calendar_provider_b';
const SCOPE = 'offline_access Calendars.ReadWrite';
const PAGE_SIZE = 500;
/** Graph's longest subscription on Outlook events was 4230 minutes; staying under it works everywhere. */
const MAX_CHANNEL_TTL_SECONDS = 4230 * 60;
/** Times in UTC, bodies as text: one shape to map whatever the mailbox settings are. */
const PREFER = 'outlook.timezone="UTC", outlook.body-content-type="text"';

const gTime = z.object({ dateTime: z.string(), timeZone: z.string().optional() });

const gEvent = z.object({
  id: z.string().min(1),
  '@odata.etag': z.string().optional(),
  '@removed': z.object({ reason: z.string().optional() }).optional(),
  changeKey: z.string().optional(),
  subject: z.string().nullish(),
  body: z.object({ contentType: z.string().optional(), content: z.string().nullish() }).nullish(),
  location: z.object({ displayName: z.string().nullish() }).nullish(),
  start: gTime.nullish(),
  end: gTime.nullish(),
  isAllDay: z.boolean().nullish(),
  showAs: z.string().nullish(),
  isCancelled: z.boolean().nullish(),
  type: z.string().nullish(),
  seriesMasterId: z.string().nullish(),
  originalStartTimeZone: z.string().nullish(),
  isReminderOn: z.boolean().nullish(),
  reminderMinutesBeforeStart: z.number().nullish(),
});
type GEvent = z.infer<typeof gEvent>;

const deltaPage = z.object({
  value: z.array(z.unknown()).optional(),
  '@odata.nextLink': z.string().optional(),
  '@odata.deltaLink': z.string().optional(),
});

const calendarsPage = z.object({
  value: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().nullish(),
        isDefaultCalendar: z.boolean().nullish(),
      }),
    )
    .optional(),
  '@odata.nextLink': z.string().optional(),
});

const subscriptionJson = z.object({ id: z.string().min(1), expirationDateTime: z.string().optional() });

/** Graph's delta answers these when a delta link can no longer be used: start again. */
const RESYNC_CODES = new Set([
  'SyncStateNotFound',
  'SyncStateInvalid',
  'resyncRequired',
  'ErrorInvalidSyncStateData',
]);

function toTime(time: z.infer<typeof gTime> | null | undefined, allDay: boolean): ExternalTime {
  if (!time) return { instant: new Date(0).toISOString() };
  // All-day events are dates; Graph writes them as midnight of the requested zone.
  if (allDay) return { date: time.dateTime.slice(0, 10) };
  const zone = ianaZone(time.timeZone) ?? 'UTC';
  const parsed = DateTime.fromISO(time.dateTime, { zone });
  return { instant: parsed.isValid ? parsed.toUTC().toISO()! : new Date(0).toISOString() };
}

/** Text of a body; an HTML one (a server that ignored our Prefer) loses its tags. */
function bodyText(body: GEvent['body']): string | null {
  const content = body?.content;
  if (!content) return null;
  if (body?.contentType?.toLowerCase() !== 'html') return content;
  return content
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

function toEvent(item: GEvent): ExternalEvent {
  const allDay = item.isAllDay === true;
  const removed = item['@removed'] !== undefined;
  const etag = item['@odata.etag'] ?? (item.changeKey ? `W/"${item.changeKey}"` : null);
  return {
    externalId: item.id,
    etag,
    cancelled: removed || item.isCancelled === true,
    seriesId: null,
    originalStart: null,
    seriesMasterId: item.seriesMasterId ?? null,
    title: item.subject ?? '',
    description: bodyText(item.body),
    location: item.location?.displayName || null,
    allDay,
    start: toTime(item.start, allDay),
    end: toTime(item.end, allDay),
    timezone: ianaZone(item.originalStartTimeZone) ?? null,
    // Occurrences arrive expanded; a series master (from a direct read) keeps no RRULE here.
    recurrence: null,
    // Only `free` is free time; tentative, busy, oof and workingElsewhere all keep the person away.
    transparency: item.showAs === 'free' ? 'transparent' : 'opaque',
    reminders:
      item.isReminderOn === undefined || item.isReminderOn === null
        ? null
        : item.isReminderOn
          ? [{ minutes: item.reminderMinutesBeforeStart ?? 15, method: 'popup' }]
          : [],
  };
}

function toGraph(event: EventWrite): Record<string, unknown> {
  const zone = event.timezone;
  const wall = (iso: string) => ({
    dateTime: DateTime.fromISO(iso, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss"),
    timeZone: zone,
  });
  const start = DateTime.fromISO(event.startTime, { zone });
  const recurrence = event.recurrence?.length ? toPatternedRecurrence(event.recurrence, start) : null;
  const first = event.reminders?.[0];
  return {
    subject: event.title,
    body: { contentType: 'text', content: event.description ?? '' },
    location: { displayName: event.location ?? '' },
    start: wall(event.startTime),
    end: wall(event.endTime),
    isAllDay: event.allDay,
    recurrence,
    ...(event.transparency ? { showAs: event.transparency === 'transparent' ? 'free' : 'busy' } : {}),
    // Graph holds one reminder per event: the earliest local one.
    ...(event.reminders
      ? {
          isReminderOn: first !== undefined,
          ...(first
            ? { reminderMinutesBeforeStart: Math.max(...event.reminders.map((reminder) => reminder.minutes)) }
            : {}),
        }
      : {}),
  };
}

/** Whether Graph can hold this local event (a series only when its rule converts). */
function graphCanHold(event: EventWrite): boolean {
  if (!event.recurrence?.length) return true;
  return (
    toPatternedRecurrence(event.recurrence, DateTime.fromISO(event.startTime, { zone: event.timezone })) !==
    null
  );
}

export function createProviderB({
  settings,
  timeoutMs,
  fetch,
}: ProviderAdapterOptions): CalendarProviderPort {
  const api = settings.apiBase;
  const http = createProviderHttp({
    label: LABEL,
    timeoutMs,
    allowedOrigins: [api, settings.tokenUrl],
    ...(fetch ? { fetch } : {}),
  });
  const enc = encodeURIComponent;

  function errorCode(answer: HttpAnswer): string | undefined {
    const error = (answer.body as { error?: { code?: unknown } } | undefined)?.error;
    return typeof error?.code === 'string' ? error.code : undefined;
  }

  // A 410 on an event means it is gone (a delta token's 410 is read before this).
  const { check, apiCall, parse, token: callTokenEndpoint } = providerCalls(LABEL, http, [404, 410]);
  const token = (form: Record<string, string>, refreshing: boolean) =>
    callTokenEndpoint(
      settings.tokenUrl,
      { ...form, client_id: settings.clientId, client_secret: settings.clientSecret, scope: SCOPE },
      refreshing,
      ['invalid_grant', 'interaction_required', 'unauthorized_client'],
    );

  const preferHeaders = { prefer: `${PREFER}, odata.maxpagesize=${PAGE_SIZE}` };
  const eventUrl = (externalId: string) => `${api}/me/events/${enc(externalId)}`;
  const ifMatch = (etag: string | null): Record<string, string> => (etag ? { 'if-match': etag } : {});

  return {
    id: 'calendar_provider_b',
    windowed: true,
    maxChannelTtlSeconds: MAX_CHANNEL_TTL_SECONDS,
    clientChannelIds: false,
    canHold: graphCanHold,

    authorizationUrl({ state, codeChallenge, redirectUri }) {
      const url = new URL(settings.authUrl);
      url.search = new URLSearchParams({
        client_id: settings.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        response_mode: 'query',
        scope: SCOPE,
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

    async listCalendars(accessToken) {
      const calendars = [];
      let next: string | undefined = `${api}/me/calendars?$top=100`;
      while (next) {
        const call: HttpCall = { method: 'GET', url: next, bearer: accessToken };
        const page = parse(calendarsPage, await apiCall(call), call);
        for (const item of page.value ?? [])
          calendars.push({
            externalId: item.id,
            name: item.name || item.id,
            primary: item.isDefaultCalendar === true,
            timezone: null,
          });
        next = page['@odata.nextLink'];
      }
      return calendars;
    },

    async listChanges(accessToken, { calendarId, syncToken, window, onPage }) {
      let next: string;
      if (syncToken) next = syncToken;
      else {
        if (!window) throw new CalendarProviderError('error', `${LABEL}: a full listing needs a window`);
        const url = new URL(`${api}/me/calendars/${enc(calendarId)}/calendarView/delta`);
        url.searchParams.set('startDateTime', window.start);
        url.searchParams.set('endDateTime', window.end);
        next = url.toString();
      }
      for (;;) {
        const call: HttpCall = { method: 'GET', url: next, bearer: accessToken, headers: preferHeaders };
        const answer = await http(call);
        const code = answer.status >= 400 ? errorCode(answer) : undefined;
        if (answer.status === 410 || (code !== undefined && RESYNC_CODES.has(code)))
          throw new SyncTokenExpiredError('error', describe(LABEL, call, answer), answer.status);
        check(call, answer);
        const page = parse(deltaPage, answer, call);
        const events: ExternalEvent[] = [];
        for (const raw of page.value ?? []) {
          const item = gEvent.safeParse(raw);
          // Series masters are not occurrences; calendarView should not send them.
          if (item.success && item.data.type !== 'seriesMaster') events.push(toEvent(item.data));
        }
        await onPage({ events, timezone: null });
        if (page['@odata.nextLink']) {
          next = page['@odata.nextLink'];
          continue;
        }
        if (!page['@odata.deltaLink'])
          throw new CalendarProviderError('error', `${LABEL} delta ended without @odata.deltaLink`);
        return page['@odata.deltaLink'];
      }
    },

    async getEvent(accessToken, _calendarId, externalId) {
      const call: HttpCall = {
        method: 'GET',
        url: eventUrl(externalId),
        bearer: accessToken,
        headers: { prefer: PREFER },
      };
      const answer = await http(call);
      if (answer.status === 404 || answer.status === 410) return null;
      check(call, answer);
      return toEvent(parse(gEvent, answer, call));
    },

    async createEvent(accessToken, calendarId, event) {
      const call: HttpCall = {
        method: 'POST',
        url: `${api}/me/calendars/${enc(calendarId)}/events`,
        bearer: accessToken,
        json: toGraph(event),
        headers: { prefer: PREFER },
      };
      return toEvent(parse(gEvent, await apiCall(call), call));
    },

    async updateEvent(accessToken, _calendarId, externalId, event, etag) {
      const body = toGraph(event);
      // An occurrence cannot take a recurrence; leave the series' own pattern alone.
      if (body.recurrence === null) delete body.recurrence;
      const call: HttpCall = {
        method: 'PATCH',
        url: eventUrl(externalId),
        bearer: accessToken,
        json: body,
        headers: { prefer: PREFER, ...ifMatch(etag) },
      };
      return toEvent(parse(gEvent, await apiCall(call), call));
    },

    async deleteEvent(accessToken, _calendarId, externalId, etag) {
      const call: HttpCall = {
        method: 'DELETE',
        url: eventUrl(externalId),
        bearer: accessToken,
        headers: ifMatch(etag),
      };
      const answer = await http(call);
      if (answer.status === 404 || answer.status === 410) return;
      check(call, answer);
    },

    async watch(accessToken, { calendarId, address, secret, ttlSeconds }) {
      const expires = new Date(
        Date.now() + Math.min(ttlSeconds, MAX_CHANNEL_TTL_SECONDS) * 1000,
      ).toISOString();
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
      return {
        channelId: subscription.id,
        resourceId: null,
        expiresAt: subscription.expirationDateTime
          ? new Date(subscription.expirationDateTime).toISOString()
          : expires,
      };
    },

    async renewWatch(accessToken, channel, ttlSeconds) {
      const expires = new Date(
        Date.now() + Math.min(ttlSeconds, MAX_CHANNEL_TTL_SECONDS) * 1000,
      ).toISOString();
      const call: HttpCall = {
        method: 'PATCH',
        url: `${api}/subscriptions/${enc(channel.channelId)}`,
        bearer: accessToken,
        json: { expirationDateTime: expires },
      };
      const answer = await http(call);
      if (answer.status === 404) return null;
      const subscription = parse(subscriptionJson, check(call, answer), call);
      return {
        channelId: subscription.id,
        resourceId: null,
        expiresAt: subscription.expirationDateTime
          ? new Date(subscription.expirationDateTime).toISOString()
          : expires,
      };
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
