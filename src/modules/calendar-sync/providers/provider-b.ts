import { z } from 'zod';
import type { CalendarProviderSettings } from '../../../config.js';
import { gEvent, graphCanHold, toEvent, toGraph } from './graph-events.js';
import { graphSubscriptions, MAX_CHANNEL_TTL_SECONDS } from './graph-subscriptions.js';
import {
  createProviderHttp,
  describe,
  type HttpAnswer,
  type HttpCall,
  type ProviderHttp,
  providerCalls,
} from './http.js';
import {
  CalendarProviderError,
  type CalendarProviderPort,
  type ExternalCalendar,
  type ExternalEvent,
  type ListChangesInput,
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
/** Times in UTC, bodies as text: one shape to map whatever the mailbox settings are. */
const PREFER = 'outlook.timezone="UTC", outlook.body-content-type="text"';

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

/** Graph's delta answers these when a delta link can no longer be used: start again. */
const RESYNC_CODES = new Set([
  'SyncStateNotFound',
  'SyncStateInvalid',
  'resyncRequired',
  'ErrorInvalidSyncStateData',
]);

/** What every call of one adapter shares: the API base, the bounded HTTP and the status mapping. */
export interface GraphClient {
  api: string;
  http: ProviderHttp;
  calls: ReturnType<typeof providerCalls>;
}

const enc = encodeURIComponent;
const preferHeaders = { prefer: `${PREFER}, odata.maxpagesize=${PAGE_SIZE}` };
const eventUrl = (api: string, externalId: string) => `${api}/me/events/${enc(externalId)}`;
const ifMatch = (etag: string | null): Record<string, string> => (etag ? { 'if-match': etag } : {});

function errorCode(answer: HttpAnswer): string | undefined {
  const error = (answer.body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
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
  // A 410 on an event means it is gone (a delta token's 410 is read before this).
  const graph: GraphClient = { api, http, calls: providerCalls(LABEL, http, [404, 410]) };

  return {
    id: 'calendar_provider_b',
    windowed: true,
    maxChannelTtlSeconds: MAX_CHANNEL_TTL_SECONDS,
    clientChannelIds: false,
    canHold: graphCanHold,
    ...authorization(settings, graph),
    listCalendars: (accessToken) => listCalendars(graph, accessToken),
    listChanges: (accessToken, input) => listChanges(graph, accessToken, input),
    ...eventCalls(graph),
    ...graphSubscriptions(graph),
  };
}

/** Sign-in with the Microsoft identity platform: authorization code with PKCE; refresh tokens rotate. */
function authorization(
  settings: CalendarProviderSettings,
  { calls }: GraphClient,
): Pick<CalendarProviderPort, 'authorizationUrl' | 'exchangeCode' | 'refresh'> {
  const token = (form: Record<string, string>, refreshing: boolean) =>
    calls.token(
      settings.tokenUrl,
      { ...form, client_id: settings.clientId, client_secret: settings.clientSecret, scope: SCOPE },
      refreshing,
      ['invalid_grant', 'interaction_required', 'unauthorized_client'],
    );

  return {
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
  };
}

async function listCalendars({ api, calls: { apiCall, parse } }: GraphClient, accessToken: string) {
  const calendars: ExternalCalendar[] = [];
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
}

/** calendarView/delta from the window (a full listing) or the delta link, page by page, to a new delta link. */
async function listChanges(
  { api, http, calls: { check, parse } }: GraphClient,
  accessToken: string,
  { calendarId, syncToken, window, onPage }: ListChangesInput,
): Promise<string> {
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
}

/** One event by id: read, create, and change or delete with If-Match on its @odata.etag. */
function eventCalls({
  api,
  http,
  calls: { check, apiCall, parse },
}: GraphClient): Pick<CalendarProviderPort, 'getEvent' | 'createEvent' | 'updateEvent' | 'deleteEvent'> {
  return {
    async getEvent(accessToken, _calendarId, externalId) {
      const call: HttpCall = {
        method: 'GET',
        url: eventUrl(api, externalId),
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
        url: eventUrl(api, externalId),
        bearer: accessToken,
        json: body,
        headers: { prefer: PREFER, ...ifMatch(etag) },
      };
      return toEvent(parse(gEvent, await apiCall(call), call));
    },

    async deleteEvent(accessToken, _calendarId, externalId, etag) {
      const call: HttpCall = {
        method: 'DELETE',
        url: eventUrl(api, externalId),
        bearer: accessToken,
        headers: ifMatch(etag),
      };
      const answer = await http(call);
      if (answer.status === 404 || answer.status === 410) return;
      check(call, answer);
    },
  };
}
