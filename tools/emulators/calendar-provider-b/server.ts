// A real HTTP server speaking a subset of Microsoft Graph v1.0 calendars and
// of the Microsoft identity platform (v2.0 endpoints), with in-memory state
// per user account. Used by the tests and, when no provider is configured, in
// development.
//
//   OAuth:  GET /{tenant}/oauth2/v2.0/authorize, POST /{tenant}/oauth2/v2.0/token,
//           GET /{tenant}/v2.0/.well-known/openid-configuration, /{tenant}/discovery/v2.0/keys
//           (no revocation endpoint: the identity platform has none for refresh tokens)
//   API:    /v1.0/me, /v1.0/me/calendars[/{id}], /v1.0/me/calendar,
//           /v1.0/me/calendars/{id}/calendarView[/delta], /v1.0/me/calendarView[/delta],
//           /v1.0/me/calendars/{id}/events[/{id}], /v1.0/me/events[/{id}],
//           /v1.0/subscriptions[/{id}]   (`users/{id|upn}` works as `me` for the signed-in user)
//   Tests:  /__admin/... (see README.md next to this file)
//
// Standalone: PORT=4011 npx tsx tools/emulators/calendar-provider-b/server.ts
import { realpathSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { pathToFileURL } from 'node:url';
import {
  Behaviour,
  type BehaviourMode,
  type BehaviourOptions,
  clientCredentials,
  commonAdminRoute,
  type Exchange,
  formOf,
  header,
  htmlPage,
  isHttpUrl,
  jsonObject,
  post,
  type RecordedRequest,
  RequestLog,
  redirect,
  sendEmpty,
  sendJson,
  startServer,
} from '../calendar-common/http.js';
import { OAuthCore, type OAuthFailure } from '../calendar-common/oauth.js';
import { Batcher, ChangeLog, Ring } from '../calendar-common/store.js';
import {
  dateOfDay,
  dayNumber,
  formatDate,
  formatLocal,
  isoSevenDigits,
  isValidTimeZone,
  type LocalDateTime,
  localToUtc,
  parseDateTime,
  utcToLocal,
} from '../calendar-common/time.js';
import { IdTokenSigner, randomChars, randomToken, StateCodec, uuid } from '../calendar-common/tokens.js';
import { normaliseRecurrence, occurrenceDays, type Recurrence } from './recurrence.js';

export type { BehaviourMode, BehaviourOptions, RecordedRequest } from '../calendar-common/http.js';

export interface CalendarProviderBEmulatorOptions {
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** Listen host; loopback by default. */
  host?: string;
  /** When set, authorize and token insist on this client (application) id; otherwise any. */
  clientId?: string;
  /** When set, the token endpoint insists on this secret (body or HTTP Basic); otherwise any. */
  clientSecret?: string;
  /** When set, only these redirect URIs are registered; otherwise any absolute http(s) URI. */
  redirectUris?: string[];
  /** Initial account user principal names; the first is the default account. Default `['user@calendar-b.test']`. */
  accounts?: string[];
  /** Directory (tenant) id in ID tokens and notifications; default a fixed GUID. */
  tenantId?: string;
  /** Access-token lifetime (`expires_in`); default 3599. 0 makes every token expired at once. */
  accessTokenTtlSeconds?: number;
  /** Authorization-code lifetime; default 600. */
  authorizationCodeTtlSeconds?: number;
  /** Refresh-token lifetime; unset (default) means they do not expire. */
  refreshTokenTtlSeconds?: number;
  /** Page size of delta and list calls without `Prefer: odata.maxpagesize` / `$top`; default 10 (Graph's). */
  defaultPageSize?: number;
  /** Changes within this window go out in one notification POST per subscription; default 0 (next tick). */
  notificationDelayMs?: number;
  /** Timeout of each notification POST; default 5000. */
  notificationTimeoutMs?: number;
  /** How long the subscription validation request may take; default 10000 (Graph's 10 s). */
  validationTimeoutMs?: number;
  /** Request body limit; default 1 MiB. */
  maxBodyBytes?: number;
  /** Events (tombstones included) a calendar may hold; default 200,000. */
  maxEventsPerCalendar?: number;
}

/** An event as Graph shows it. */
export interface GraphEvent {
  '@odata.etag': string;
  id: string;
  subject: string;
  [property: string]: unknown;
}

/** An event body as Graph takes it (POST, PATCH). Admin helpers also take `isCancelled`. */
export type GraphEventInput = Record<string, unknown>;

export interface GraphCalendar {
  id: string;
  name: string;
  isDefaultCalendar: boolean;
  canEdit: boolean;
  [property: string]: unknown;
}

export interface CreateCalendarInput {
  name: string;
  /** Default true; false calendars refuse writes through the API (403 ErrorAccessDenied). */
  canEdit?: boolean;
  color?: string;
}

export interface SubscriptionInfo {
  id: string;
  resource: string;
  changeType: string;
  notificationUrl: string;
  clientState: string | null;
  expirationDateTime: string;
  account: string;
  calendarId: string;
  active: boolean;
}

export interface NotificationRecord {
  at: string;
  kind: 'validation' | 'notification';
  subscriptionId: string | null;
  url: string;
  /** Notifications in the POST (0 for validation requests). */
  count: number;
  status: number | null;
  error: string | null;
}

export interface CalendarProviderBEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** `<url>/common/oauth2/v2.0/authorize` (https://login.microsoftonline.com/common/oauth2/v2.0/authorize). */
  authUrl: string;
  /** `<url>/common/oauth2/v2.0/token`. */
  tokenUrl: string;
  /** `<url>/v1.0` (https://graph.microsoft.com/v1.0). */
  apiBase: string;
  /** The account authorize picks without `login_hint`/`user`. */
  defaultAccount: string;
  /** The service's settings for this emulator, e.g. `CALENDAR_PROVIDER_B_AUTH_URL`. */
  env(prefix?: string): Record<string, string>;
  /** Adds an account (no-op when it exists) with its default calendar `Calendar`. */
  createAccount(account: string): { account: string; id: string; defaultCalendarId: string };
  createCalendar(account: string, input: CreateCalendarInput): GraphCalendar;
  deleteCalendar(account: string, calendarId: string): void;
  calendars(account: string): GraphCalendar[];
  /** Creates an event as `POST /me/calendars/{id}/events` would; `calendarId` may be `default`. */
  createEvent(account: string, calendarId: string, event: GraphEventInput): GraphEvent;
  /** Creates many events in one go (all validated first): one notification POST per subscription. */
  createEvents(account: string, calendarId: string, events: GraphEventInput[]): GraphEvent[];
  /** Changes an event as `PATCH` would. */
  updateEvent(account: string, calendarId: string, eventId: string, patch: GraphEventInput): GraphEvent;
  /** Deletes an event (or one occurrence of a series, by occurrence id). */
  deleteEvent(account: string, calendarId: string, eventId: string): void;
  getEvent(account: string, calendarId: string, eventId: string): GraphEvent | undefined;
  /** Series masters and single events (not occurrences), times in UTC. */
  listEvents(account: string, calendarId: string): GraphEvent[];
  /** Every delta and skip token issued so far answers 410 SyncStateNotFound from now on. */
  expireSyncTokens(): void;
  /** Revokes every grant (of one account when given): refresh and access tokens stop working. */
  revokeGrants(account?: string): number;
  /** Makes live access tokens expired (401) while refresh tokens keep working. */
  expireAccessTokens(account?: string): number;
  subscriptions(): SubscriptionInfo[];
  /** Ends every subscription as if its expirationDateTime had passed. */
  expireSubscriptions(): number;
  notifications(): NotificationRecord[];
  /** API and OAuth calls so far, oldest first (admin calls are not recorded). */
  requests(): RecordedRequest[];
  clearRequests(): void;
  /** Failure injection: `fail` 503, `throttle` 429 (Retry-After), `hang` never answers. */
  setBehaviour(mode: BehaviourMode, options?: BehaviourOptions): void;
  /** Back to the initial accounts with empty calendars; tokens, subscriptions and logs forgotten. */
  reset(): void;
  close(): Promise<void>;
}

/** A failure in Graph's wire format; admin helpers throw it too. */
export class GraphApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${JSON.stringify(body)}`);
  }
}

interface Account {
  upn: string;
  id: string;
  displayName: string;
  defaultCalendarId: string;
  calendars: Map<string, Calendar>;
}

interface Calendar {
  uid: string;
  id: string;
  account: Account;
  name: string;
  color: string;
  canEdit: boolean;
  isDefault: boolean;
  changeKey: string;
  log: ChangeLog<StoredEvent>;
}

interface TimePoint {
  local: LocalDateTime;
  /** As the client gave it (IANA or Windows name): `originalStartTimeZone`. */
  label: string;
  iana: string;
}

/** What decides which occurrences (ids, times) an event shows in a calendar view. */
interface Shape {
  seq: number;
  deleted: boolean;
  isAllDay: boolean;
  startMs: number;
  endMs: number;
  startLocal: LocalDateTime;
  iana: string;
  recurrence: Recurrence | null;
  cancelled: string[];
  /** Exceptions: original date -> their own start and end. */
  moved: [string, number, number][];
}

/** What a changed occurrence (an exception) holds of its own. */
interface ExceptionData {
  changeKey: string;
  modified: number;
  subject: string;
  body: { contentType: 'text' | 'html'; content: string };
  location: string;
  categories: string[];
  importance: string;
  sensitivity: string;
  showAs: string;
  isReminderOn: boolean;
  reminderMinutesBeforeStart: number;
  isAllDay: boolean;
  start: TimePoint;
  end: TimePoint;
  startMs: number;
  endMs: number;
}

interface StoredEvent {
  id: string;
  seq: number;
  changeKey: string;
  /** The change key the series' plain occurrences show: it moves when the master changes, not when one occurrence does. */
  seriesKey: string;
  created: number;
  modified: number;
  deleted: boolean;
  subject: string;
  body: { contentType: 'text' | 'html'; content: string };
  location: string;
  categories: string[];
  importance: string;
  sensitivity: string;
  showAs: string;
  isReminderOn: boolean;
  reminderMinutesBeforeStart: number;
  isAllDay: boolean;
  isCancelled: boolean;
  start: TimePoint;
  end: TimePoint;
  startMs: number;
  endMs: number;
  recurrence: Recurrence | null;
  cancelledOccurrences: Set<string>;
  exceptions: Map<string, ExceptionData>;
  transactionId: string | null;
  iCalUId: string;
  extended: Map<string, string>;
  attendees: unknown[];
  history: Shape[];
}

interface Subscription {
  id: string;
  resource: string;
  calendarUid: string;
  calendarId: string;
  changeTypes: Set<string>;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string | null;
  clientState: string | null;
  expiration: number;
  account: string;
  clientId: string;
  latestSupportedTlsVersion: string;
  deleted: boolean;
  /** Deliveries go out one after the other, in order. */
  queue: Promise<void>;
}

interface Preferences {
  zoneLabel: string;
  zoneIana: string;
  bodyType: 'html' | 'text' | null;
  pageSize: number | null;
  applied: string[];
}

const GRAPH = 'https://graph.microsoft.com/';
const DEFAULT_TENANT_ID = '9188040d-6c67-4c5b-b112-36a304b66dad';
const READ_SCOPES = [
  'Calendars.Read',
  'Calendars.ReadWrite',
  'Calendars.Read.Shared',
  'Calendars.ReadWrite.Shared',
  'Calendars.ReadBasic',
];
const WRITE_SCOPES = ['Calendars.ReadWrite', 'Calendars.ReadWrite.Shared'];
const USER_SCOPES = [
  'User.Read',
  'User.ReadWrite',
  'User.ReadBasic.All',
  'User.Read.All',
  'Directory.Read.All',
];
const KNOWN_SCOPES = [
  ...new Set([
    ...READ_SCOPES,
    ...WRITE_SCOPES,
    ...USER_SCOPES,
    'offline_access',
    'openid',
    'profile',
    'email',
  ]),
];
/** The Windows zone names Outlook clients send most, mapped to IANA. Graph also takes IANA names. */
const WINDOWS_ZONES: Record<string, string> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'Romance Standard Time': 'Europe/Paris',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'GTB Standard Time': 'Europe/Bucharest',
  'Russian Standard Time': 'Europe/Moscow',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'Arabian Standard Time': 'Asia/Dubai',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Singapore Standard Time': 'Asia/Singapore',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Atlantic Standard Time': 'America/Halifax',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'SA Pacific Standard Time': 'America/Bogota',
  'Central Standard Time (Mexico)': 'America/Mexico_City',
};
/** Every property of Graph's event type; others are refused (RequestBodyRead), as Graph does. */
const EVENT_PROPERTIES = new Set([
  '@odata.type',
  '@odata.etag',
  'allowNewTimeProposals',
  'attachments',
  'attendees',
  'body',
  'bodyPreview',
  'calendar',
  'cancelledOccurrences',
  'categories',
  'changeKey',
  'createdDateTime',
  'end',
  'exceptionOccurrences',
  'extensions',
  'hasAttachments',
  'hideAttendees',
  'iCalUId',
  'id',
  'importance',
  'instances',
  'isAllDay',
  'isCancelled',
  'isDraft',
  'isOnlineMeeting',
  'isOrganizer',
  'isReminderOn',
  'lastModifiedDateTime',
  'location',
  'locations',
  'multiValueExtendedProperties',
  'occurrenceId',
  'onlineMeeting',
  'onlineMeetingProvider',
  'onlineMeetingUrl',
  'organizer',
  'originalEndTimeZone',
  'originalStart',
  'originalStartTimeZone',
  'recurrence',
  'reminderMinutesBeforeStart',
  'responseRequested',
  'responseStatus',
  'sensitivity',
  'seriesMasterId',
  'showAs',
  'singleValueExtendedProperties',
  'start',
  'subject',
  'transactionId',
  'type',
  'uid',
  'webLink',
]);
const MAX_ACCOUNTS = 1000;
const MAX_CALENDARS_PER_ACCOUNT = 100;
const MAX_SUBSCRIPTIONS = 1000;
const MAX_SUBSCRIPTION_MINUTES = 10_080;
const MAX_PAGE_SIZE = 1000;
const OCCURRENCE_ID = /^(.+)_(\d{8})$/;

const gerr = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  new GraphApiError(
    status,
    {
      error: {
        code,
        message,
        innerError: {
          date: new Date().toISOString().slice(0, 19),
          'request-id': uuid(),
          'client-request-id': uuid(),
        },
      },
    },
    headers,
  );
const itemNotFound = () => gerr(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
const invalid = (message: string) => gerr(400, 'ErrorInvalidRequest', message);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function ianaOf(label: string): string | null {
  if (WINDOWS_ZONES[label]) return WINDOWS_ZONES[label]!;
  return isValidTimeZone(label) ? label : null;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function htmlToText(html: string): string {
  return html
    .replace(/<head[\s\S]*?<\/head>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .trim();
}

function textToHtml(text: string): string {
  return (
    '<html><head>\r\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\r\n</head>\r\n<body>\r\n' +
    `${escapeHtml(text).replace(/\r?\n/g, '<br>\r\n')}\r\n</body>\r\n</html>\r\n`
  );
}

const compactDate = (day: number) => formatDate(dateOfDay(day)).replace(/-/g, '');

export async function startCalendarProviderBEmulator(
  options: CalendarProviderBEmulatorOptions = {},
): Promise<CalendarProviderBEmulator> {
  const initialAccounts = options.accounts?.length ? options.accounts : ['user@calendar-b.test'];
  const defaultAccount = initialAccounts[0]!;
  const tenantId = options.tenantId ?? DEFAULT_TENANT_ID;
  const maxEvents = options.maxEventsPerCalendar ?? 200_000;
  const defaultPageSize = Math.min(Math.max(options.defaultPageSize ?? 10, 1), MAX_PAGE_SIZE);
  const oauth = new OAuthCore({
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    codeTtlSeconds: options.authorizationCodeTtlSeconds ?? 600,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds,
    prefixes: { code: '1.AXcA', access: 'EwBIA8l6BAAU', refresh: '0.AXcA' },
  });
  const codec = new StateCodec();
  const signer = new IdTokenSigner();
  const behaviour = new Behaviour();
  const requestLog = new RequestLog();
  const notificationLog = new Ring<NotificationRecord>(5000);
  const accounts = new Map<string, Account>();
  const calendarsByUid = new Map<string, Calendar>();
  const subscriptions = new Map<string, Subscription>();
  let seq = 0;
  let epoch = 1;
  let baseUrl = '';
  let closed = false;

  const newGraphId = () => `AAMkA${randomToken(36)}AAA=`;
  const newChangeKey = () =>
    `DwAAABYAAAA${randomChars(22, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}==`;

  // ---------------------------------------------------------------- state

  function addAccount(upn: string): Account {
    const existing = accounts.get(upn);
    if (existing) return existing;
    if (accounts.size >= MAX_ACCOUNTS) throw gerr(403, 'ErrorQuotaExceeded', 'Too many emulator accounts');
    if (!upn || upn.length > 254) throw invalid('Invalid account');
    const account: Account = {
      upn,
      id: uuid(),
      displayName: upn.split('@')[0] ?? upn,
      defaultCalendarId: '',
      calendars: new Map(),
    };
    accounts.set(upn, account);
    account.defaultCalendarId = addCalendar(account, { name: 'Calendar', canEdit: true }, true).id;
    return account;
  }

  function addCalendar(account: Account, input: CreateCalendarInput, isDefault = false): Calendar {
    if (account.calendars.size >= MAX_CALENDARS_PER_ACCOUNT)
      throw gerr(403, 'ErrorQuotaExceeded', 'The calendar quota was exceeded.');
    if (typeof input.name !== 'string' || input.name === '') throw invalid('name is required.');
    const calendar: Calendar = {
      uid: randomToken(12),
      id: newGraphId(),
      account,
      name: input.name,
      color: input.color ?? 'auto',
      canEdit: input.canEdit ?? true,
      isDefault,
      changeKey: newChangeKey(),
      log: new ChangeLog<StoredEvent>(),
    };
    account.calendars.set(calendar.id, calendar);
    calendarsByUid.set(calendar.uid, calendar);
    return calendar;
  }

  function accountOf(upn: string): Account {
    const account = accounts.get(upn);
    if (!account) throw gerr(404, 'ErrorItemNotFound', `No such account: ${upn}`);
    return account;
  }

  function calendarOf(account: Account, calendarId: string): Calendar {
    const id = calendarId === 'default' || calendarId === 'primary' ? account.defaultCalendarId : calendarId;
    const calendar = account.calendars.get(id);
    if (!calendar) throw itemNotFound();
    return calendar;
  }

  function renderCalendar(calendar: Calendar): GraphCalendar {
    return {
      id: calendar.id,
      name: calendar.name,
      color: calendar.color,
      hexColor: '',
      isDefaultCalendar: calendar.isDefault,
      changeKey: calendar.changeKey,
      canShare: calendar.canEdit,
      canViewPrivateItems: true,
      canEdit: calendar.canEdit,
      allowedOnlineMeetingProviders: ['teamsForBusiness'],
      defaultOnlineMeetingProvider: 'teamsForBusiness',
      isTallyingResponses: true,
      isRemovable: !calendar.isDefault,
      owner: { name: calendar.account.displayName, address: calendar.account.upn },
    };
  }

  // ------------------------------------------------------------- events

  function timePoint(value: unknown, which: 'start' | 'end'): { point: TimePoint; ms: number } {
    if (!isPlainObject(value) || typeof value.dateTime !== 'string')
      throw invalid(`The ${which} property is required and must have dateTime and timeZone.`);
    if (typeof value.timeZone !== 'string' || value.timeZone === '')
      throw invalid(`The ${which} property needs a timeZone.`);
    const iana = ianaOf(value.timeZone);
    if (!iana)
      throw gerr(
        400,
        'TimeZoneNotSupportedException',
        `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${value.timeZone}'.`,
      );
    const parsed = parseDateTime(value.dateTime);
    if (!parsed)
      throw invalid(`Cannot convert the literal '${value.dateTime}' to the expected type 'Edm.DateTime'.`);
    let local = parsed.local;
    let ms: number;
    if (parsed.offsetMinutes !== null) {
      ms =
        Date.UTC(
          local.year,
          local.month - 1,
          local.day,
          local.hour,
          local.minute,
          local.second,
          local.millisecond,
        ) -
        parsed.offsetMinutes * 60_000;
      local = utcToLocal(ms, iana);
    } else ms = localToUtc(local, iana);
    return { point: { local, label: value.timeZone, iana }, ms };
  }

  function validateShape(event: StoredEvent): void {
    if (event.endMs < event.startMs)
      throw gerr(400, 'ErrorPropertyValidationFailure', 'The end of the event is before its start.');
    if (event.isAllDay) {
      const midnight = (l: LocalDateTime) =>
        l.hour === 0 && l.minute === 0 && l.second === 0 && l.millisecond === 0;
      if (!midnight(event.start.local) || !midnight(event.end.local) || event.endMs === event.startMs)
        throw gerr(
          400,
          'ErrorPropertyValidationFailure',
          'An all-day event must start and end at midnight and last at least one day.',
        );
    }
  }

  /**
   * Applies a POST or PATCH body to `event` (a fresh default for POST).
   * Complex properties (start, end, body, location, recurrence) are replaced
   * as a whole, as Graph documents them.
   */
  function apply(event: StoredEvent, input: Record<string, unknown>, admin: boolean): void {
    for (const key of Object.keys(input))
      if (!EVENT_PROPERTIES.has(key) && !key.includes('@'))
        throw gerr(
          400,
          'RequestBodyRead',
          `The property '${key}' does not exist on type 'microsoft.graph.event'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
        );
    const str = (key: string, max = 1_000_000): string | undefined => {
      const value = input[key];
      if (value === undefined) return undefined;
      if (value === null) return '';
      if (typeof value !== 'string' || value.length > max) throw invalid(`Invalid value for '${key}'.`);
      return value;
    };
    const oneOf = (key: string, allowed: string[]): string | undefined => {
      const value = input[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || !allowed.includes(value))
        throw gerr(400, 'RequestBodyRead', `Requested value '${String(value)}' was not found for '${key}'.`);
      return value;
    };
    const bool = (key: string): boolean | undefined => {
      const value = input[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'boolean') throw gerr(400, 'RequestBodyRead', `Invalid value for '${key}'.`);
      return value;
    };
    const subject = str('subject', 255 * 4);
    if (subject !== undefined) event.subject = subject;
    if (input.body !== undefined) {
      const body = input.body;
      if (body === null) event.body = { contentType: 'html', content: '' };
      else {
        if (!isPlainObject(body)) throw invalid("Invalid value for 'body'.");
        const contentType = (body.contentType ?? 'text') as string;
        if (contentType !== 'text' && contentType !== 'html')
          throw gerr(400, 'RequestBodyRead', `Requested value '${contentType}' was not found.`);
        if (body.content !== undefined && body.content !== null && typeof body.content !== 'string')
          throw invalid("Invalid value for 'body.content'.");
        event.body = { contentType, content: (body.content as string | null | undefined) ?? '' };
      }
    }
    if (input.location !== undefined) {
      const location = input.location;
      if (location === null) event.location = '';
      else {
        if (
          !isPlainObject(location) ||
          (location.displayName !== undefined && typeof location.displayName !== 'string')
        )
          throw invalid("Invalid value for 'location'.");
        event.location = (location.displayName as string | undefined) ?? '';
      }
    }
    if (input.categories !== undefined) {
      const categories = input.categories;
      if (
        !Array.isArray(categories) ||
        categories.some((c) => typeof c !== 'string') ||
        categories.length > 100
      )
        throw invalid("Invalid value for 'categories'.");
      event.categories = [...(categories as string[])];
    }
    event.importance = oneOf('importance', ['low', 'normal', 'high']) ?? event.importance;
    event.sensitivity =
      oneOf('sensitivity', ['normal', 'personal', 'private', 'confidential']) ?? event.sensitivity;
    event.showAs =
      oneOf('showAs', ['free', 'tentative', 'busy', 'oof', 'workingElsewhere', 'unknown']) ?? event.showAs;
    event.isReminderOn = bool('isReminderOn') ?? event.isReminderOn;
    if (input.reminderMinutesBeforeStart !== undefined) {
      const minutes = input.reminderMinutesBeforeStart;
      if (!Number.isInteger(minutes) || (minutes as number) < 0 || (minutes as number) > 5_256_000)
        throw invalid("Invalid value for 'reminderMinutesBeforeStart'.");
      event.reminderMinutesBeforeStart = minutes as number;
    }
    event.isAllDay = bool('isAllDay') ?? event.isAllDay;
    if (admin) event.isCancelled = bool('isCancelled') ?? event.isCancelled;
    if (input.start !== undefined) {
      const { point, ms } = timePoint(input.start, 'start');
      event.start = point;
      event.startMs = ms;
    }
    if (input.end !== undefined) {
      const { point, ms } = timePoint(input.end, 'end');
      event.end = point;
      event.endMs = ms;
    }
    const previousRecurrence = event.recurrence;
    if (input.recurrence !== undefined) {
      if (input.recurrence === null) event.recurrence = null;
      else {
        const recurrence = normaliseRecurrence(input.recurrence, event.start.label);
        if (typeof recurrence === 'string') throw invalid(recurrence);
        if (!ianaOf(recurrence.range.recurrenceTimeZone))
          throw gerr(
            400,
            'TimeZoneNotSupportedException',
            `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${recurrence.range.recurrenceTimeZone}'.`,
          );
        event.recurrence = recurrence;
      }
      if (JSON.stringify(event.recurrence) !== JSON.stringify(previousRecurrence)) {
        // A new pattern drops the old series' cancelled and changed occurrences, as Outlook does.
        event.cancelledOccurrences = new Set();
        event.exceptions = new Map();
      }
    }
    if (input.attendees !== undefined) {
      if (!Array.isArray(input.attendees) || input.attendees.length > 500)
        throw invalid("Invalid value for 'attendees'.");
      event.attendees = structuredClone(input.attendees);
    }
    if (input.singleValueExtendedProperties !== undefined) {
      const properties = input.singleValueExtendedProperties;
      if (!Array.isArray(properties) || properties.length > 100)
        throw invalid("Invalid value for 'singleValueExtendedProperties'.");
      for (const property of properties) {
        if (!isPlainObject(property) || typeof property.id !== 'string' || typeof property.value !== 'string')
          throw invalid('A singleValueExtendedProperty needs a string id and value.');
        event.extended.set(property.id, property.value);
      }
    }
  }

  function blankEvent(now: number): StoredEvent {
    const zero: LocalDateTime = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 };
    return {
      id: '',
      seq: 0,
      changeKey: '',
      seriesKey: '',
      created: now,
      modified: now,
      deleted: false,
      subject: '',
      body: { contentType: 'html', content: '' },
      location: '',
      categories: [],
      importance: 'normal',
      sensitivity: 'normal',
      showAs: 'busy',
      isReminderOn: true,
      reminderMinutesBeforeStart: 15,
      isAllDay: false,
      isCancelled: false,
      start: { local: zero, label: 'UTC', iana: 'UTC' },
      end: { local: zero, label: 'UTC', iana: 'UTC' },
      startMs: Number.NaN,
      endMs: Number.NaN,
      recurrence: null,
      cancelledOccurrences: new Set(),
      exceptions: new Map(),
      transactionId: null,
      iCalUId: `040000008200E00074C5B7101A82E00800000000${randomChars(72, '0123456789ABCDEF')}`,
      extended: new Map(),
      attendees: [],
      history: [],
    };
  }

  function shapeOf(event: StoredEvent): Shape {
    return {
      seq: event.seq,
      deleted: event.deleted,
      isAllDay: event.isAllDay,
      startMs: event.startMs,
      endMs: event.endMs,
      startLocal: event.start.local,
      iana: event.start.iana,
      recurrence: event.recurrence,
      cancelled: [...event.cancelledOccurrences],
      moved: [...event.exceptions].map(([date, exception]) => [date, exception.startMs, exception.endMs]),
    };
  }

  function touch(
    calendar: Calendar,
    event: StoredEvent,
    changeType: 'created' | 'updated' | 'deleted',
    previous: Shape | null,
  ) {
    if (previous) {
      event.history.push(previous);
      if (event.history.length > 20) event.history.splice(0, event.history.length - 20);
    }
    seq += 1;
    event.seq = seq;
    event.changeKey = newChangeKey();
    calendar.log.put(event);
    for (const subscription of subscriptions.values())
      if (subscription.calendarUid === calendar.uid && subscription.changeTypes.has(changeType))
        notifier.add(subscription.id, { event, changeType });
  }

  function prepareNew(input: unknown, admin: boolean): StoredEvent {
    if (!isPlainObject(input)) throw gerr(400, 'RequestBodyRead', 'The request body must be a JSON object.');
    if (input.start === undefined || input.end === undefined)
      throw invalid('An event needs start and end (dateTime and timeZone).');
    const now = Date.now();
    const event = blankEvent(now);
    apply(event, input, admin);
    validateShape(event);
    if (typeof input.transactionId === 'string') event.transactionId = input.transactionId.slice(0, 200);
    return event;
  }

  function storeNew(calendar: Calendar, event: StoredEvent): StoredEvent {
    if (calendar.log.size >= maxEvents)
      throw gerr(403, 'ErrorQuotaExceeded', 'The mailbox quota was exceeded.');
    do event.id = newGraphId();
    while (calendar.log.get(event.id));
    touch(calendar, event, 'created', null);
    event.seriesKey = event.changeKey;
    return event;
  }

  function checkIfMatch(event: { changeKey: string }, ifMatch: string | null): void {
    if (ifMatch === null || ifMatch.trim() === '*') return;
    const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, ''));
    if (!tags.includes(event.changeKey))
      throw gerr(
        412,
        'ErrorIrresolvableConflict',
        'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.',
      );
  }

  function liveEvent(calendar: Calendar, eventId: string): StoredEvent {
    const event = calendar.log.get(eventId);
    if (!event || event.deleted) throw itemNotFound();
    return event;
  }

  function changeEvent(
    calendar: Calendar,
    eventId: string,
    input: unknown,
    ifMatch: string | null,
    admin: boolean,
  ) {
    if (!isPlainObject(input)) throw gerr(400, 'RequestBodyRead', 'The request body must be a JSON object.');
    if (OCCURRENCE_ID.test(eventId) && !calendar.log.get(eventId))
      return changeOccurrence(calendar, eventId, input, ifMatch, admin);
    const event = liveEvent(calendar, eventId);
    checkIfMatch(event, ifMatch);
    const previous = shapeOf(event);
    const draft: StoredEvent = {
      ...event,
      cancelledOccurrences: new Set(event.cancelledOccurrences),
      exceptions: new Map(event.exceptions),
      extended: new Map(event.extended),
    };
    apply(draft, input, admin);
    validateShape(draft);
    Object.assign(event, draft);
    event.modified = Math.max(Date.now(), event.modified + 1);
    touch(calendar, event, 'updated', previous);
    event.seriesKey = event.changeKey;
    return event;
  }

  /** PATCH of one occurrence: it becomes an exception of its series (same id, `type: 'exception'`). */
  function changeOccurrence(
    calendar: Calendar,
    occurrenceId: string,
    input: Record<string, unknown>,
    ifMatch: string | null,
    admin: boolean,
  ): StoredEvent {
    if (input.recurrence !== undefined && input.recurrence !== null)
      throw invalid('An occurrence of a series cannot have a recurrence.');
    const { master, occurrence } = occurrenceOf(calendar, occurrenceId);
    const date = occurrence.date!;
    const existing = master.exceptions.get(date);
    checkIfMatch(existing ?? { changeKey: master.seriesKey }, ifMatch);
    const draft: StoredEvent = {
      ...master,
      ...(existing ?? {}),
      start: existing?.start ?? { ...master.start, local: utcToLocal(occurrence.startMs, master.start.iana) },
      end: existing?.end ?? { ...master.end, local: utcToLocal(occurrence.endMs, master.end.iana) },
      startMs: occurrence.startMs,
      endMs: occurrence.endMs,
      recurrence: null,
      extended: new Map(master.extended),
    };
    if (master.isAllDay && !existing) {
      draft.start = {
        ...master.start,
        local: { ...master.start.local, ...dateOfDayParts(occurrence.date!) },
      };
      const days = dayNumber(master.end.local) - dayNumber(master.start.local);
      const endDay = dateOfDay(dayNumber(draft.start.local) + days);
      draft.end = {
        ...master.end,
        local: { ...master.end.local, year: endDay.year, month: endDay.month, day: endDay.day },
      };
    }
    const { recurrence: _ignored, ...rest } = input;
    apply(draft, rest, admin);
    validateShape(draft);
    const previous = shapeOf(master);
    master.exceptions.set(date, {
      changeKey: newChangeKey(),
      modified: Date.now(),
      subject: draft.subject,
      body: draft.body,
      location: draft.location,
      categories: draft.categories,
      importance: draft.importance,
      sensitivity: draft.sensitivity,
      showAs: draft.showAs,
      isReminderOn: draft.isReminderOn,
      reminderMinutesBeforeStart: draft.reminderMinutesBeforeStart,
      isAllDay: draft.isAllDay,
      start: draft.start,
      end: draft.end,
      startMs: draft.startMs,
      endMs: draft.endMs,
    });
    master.modified = Math.max(Date.now(), master.modified + 1);
    touch(calendar, master, 'updated', previous);
    return master;
  }

  function dateOfDayParts(date: string) {
    return {
      year: Number(date.slice(0, 4)),
      month: Number(date.slice(5, 7)),
      day: Number(date.slice(8, 10)),
    };
  }

  function removeEvent(calendar: Calendar, eventId: string, ifMatch: string | null) {
    const occurrence = OCCURRENCE_ID.exec(eventId);
    if (occurrence && !calendar.log.get(eventId)) {
      const master = liveEvent(calendar, occurrence[1]!);
      const date = `${occurrence[2]!.slice(0, 4)}-${occurrence[2]!.slice(4, 6)}-${occurrence[2]!.slice(6, 8)}`;
      if (!master.recurrence || master.cancelledOccurrences.has(date) || !occursOn(master, date))
        throw itemNotFound();
      checkIfMatch(master.exceptions.get(date) ?? { changeKey: master.seriesKey }, ifMatch);
      const previous = shapeOf(master);
      master.cancelledOccurrences.add(date);
      master.exceptions.delete(date);
      master.modified = Math.max(Date.now(), master.modified + 1);
      touch(calendar, master, 'updated', previous);
      return;
    }
    const event = liveEvent(calendar, eventId);
    checkIfMatch(event, ifMatch);
    const previous = shapeOf(event);
    event.deleted = true;
    event.modified = Math.max(Date.now(), event.modified + 1);
    touch(calendar, event, 'deleted', previous);
  }

  // ----------------------------------------------------------- occurrences

  interface Occurrence {
    id: string;
    date: string | null;
    startMs: number;
    endMs: number;
  }

  /** The instances a shape shows in [from, to): the event itself, or its occurrences. */
  function instances(masterId: string, shape: Shape, from: number, to: number): Occurrence[] {
    if (shape.deleted) return [];
    if (!shape.recurrence) {
      const overlaps = shape.startMs < to && shape.endMs > from;
      const zeroLength = shape.startMs === shape.endMs && shape.startMs >= from && shape.startMs < to;
      return overlaps || zeroLength
        ? [{ id: masterId, date: null, startMs: shape.startMs, endMs: shape.endMs }]
        : [];
    }
    const duration = shape.endMs - shape.startMs;
    const zone = ianaOf(shape.recurrence.range.recurrenceTimeZone) ?? shape.iana;
    const firstDay = Math.floor(from / 86_400_000) - 2 - Math.ceil(duration / 86_400_000);
    const lastDay = Math.floor(to / 86_400_000) + 2;
    const cancelled = new Set(shape.cancelled);
    const moved = new Map(shape.moved.map(([date, startMs, endMs]) => [date, { startMs, endMs }]));
    const out: Occurrence[] = [];
    for (const day of occurrenceDays(shape.recurrence, lastDay)) {
      if (day < firstDay) continue;
      const date = formatDate(dateOfDay(day));
      if (cancelled.has(date)) continue;
      const { year, month, day: dom } = dateOfDay(day);
      const exception = moved.get(date);
      const startMs = exception?.startMs ?? localToUtc({ ...shape.startLocal, year, month, day: dom }, zone);
      const endMs = exception?.endMs ?? startMs + duration;
      if (startMs < to && (endMs > from || (duration === 0 && startMs >= from)))
        out.push({ id: `${masterId}_${compactDate(day)}`, date, startMs, endMs });
      if (out.length >= 20_000) break;
    }
    return out;
  }

  function occursOn(event: StoredEvent, date: string): boolean {
    if (!event.recurrence) return false;
    const day = dayNumber({
      year: Number(date.slice(0, 4)),
      month: Number(date.slice(5, 7)),
      day: Number(date.slice(8, 10)),
    });
    for (const candidate of occurrenceDays(event.recurrence, day)) if (candidate === day) return true;
    return false;
  }

  function occurrenceOf(
    calendar: Calendar,
    occurrenceId: string,
  ): { master: StoredEvent; occurrence: Occurrence } {
    const match = OCCURRENCE_ID.exec(occurrenceId);
    if (!match) throw itemNotFound();
    const master = liveEvent(calendar, match[1]!);
    const compact = match[2]!;
    const date = `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
    if (!master.recurrence || master.cancelledOccurrences.has(date) || !occursOn(master, date))
      throw itemNotFound();
    const day = dayNumber({
      year: Number(compact.slice(0, 4)),
      month: Number(compact.slice(4, 6)),
      day: Number(compact.slice(6, 8)),
    });
    const exception = master.exceptions.get(date);
    if (exception)
      return {
        master,
        occurrence: { id: occurrenceId, date, startMs: exception.startMs, endMs: exception.endMs },
      };
    const zone = ianaOf(master.recurrence.range.recurrenceTimeZone) ?? master.start.iana;
    const { year, month, day: dom } = dateOfDay(day);
    const startMs = localToUtc({ ...master.start.local, year, month, day: dom }, zone);
    return {
      master,
      occurrence: { id: occurrenceId, date, startMs, endMs: startMs + (master.endMs - master.startMs) },
    };
  }

  // --------------------------------------------------------------- render

  function preferences(request: IncomingMessage): Preferences {
    const raw = request.headers.prefer;
    const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
    const prefs: Preferences = {
      zoneLabel: 'UTC',
      zoneIana: 'UTC',
      bodyType: null,
      pageSize: null,
      applied: [],
    };
    const zone = /outlook\.timezone\s*=\s*"([^"]*)"/i.exec(text)?.[1];
    if (zone !== undefined) {
      const iana = ianaOf(zone);
      if (!iana)
        throw gerr(
          400,
          'TimeZoneNotSupportedException',
          `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${zone}'.`,
        );
      prefs.zoneLabel = zone;
      prefs.zoneIana = iana;
      prefs.applied.push(`outlook.timezone="${zone}"`);
    }
    const bodyType = /outlook\.body-content-type\s*=\s*"?(text|html)"?/i.exec(text)?.[1];
    if (bodyType) {
      prefs.bodyType = bodyType.toLowerCase() as 'text' | 'html';
      prefs.applied.push(`outlook.body-content-type="${prefs.bodyType}"`);
    }
    const pageSize = /odata\.maxpagesize\s*=\s*(\d+)/i.exec(text)?.[1];
    if (pageSize) {
      prefs.pageSize = Math.min(Math.max(Number(pageSize), 1), MAX_PAGE_SIZE);
      prefs.applied.push(`odata.maxpagesize=${prefs.pageSize}`);
    }
    return prefs;
  }

  function renderTime(ms: number, point: TimePoint, allDay: boolean, prefs: Preferences) {
    const local = allDay ? point.local : utcToLocal(ms, prefs.zoneIana);
    return { dateTime: formatLocal(local, 7), timeZone: prefs.zoneLabel };
  }

  interface RenderOptions {
    prefs: Preferences;
    occurrence?: Occurrence;
    select?: string[] | null;
    expandExtended?: string | null | true;
    delta?: boolean;
  }

  function render(calendar: Calendar, master: StoredEvent, opts: RenderOptions): GraphEvent {
    const { prefs, occurrence } = opts;
    const exception = occurrence?.date ? master.exceptions.get(occurrence.date) : undefined;
    const event: StoredEvent = exception
      ? { ...master, ...exception }
      : occurrence?.date
        ? { ...master, changeKey: master.seriesKey }
        : master;
    const bodyType = prefs.bodyType ?? 'html';
    const content =
      bodyType === event.body.contentType
        ? event.body.content
        : bodyType === 'html'
          ? textToHtml(event.body.content)
          : htmlToText(event.body.content);
    const plain = event.body.contentType === 'text' ? event.body.content : htmlToText(event.body.content);
    const isOccurrence = occurrence !== undefined && occurrence.date !== null;
    let start = renderTime(event.startMs, event.start, event.isAllDay, prefs);
    let end = renderTime(event.endMs, event.end, event.isAllDay, prefs);
    if (isOccurrence && exception) {
      start = renderTime(exception.startMs, exception.start, exception.isAllDay, prefs);
      end = renderTime(exception.endMs, exception.end, exception.isAllDay, prefs);
    } else if (isOccurrence) {
      if (event.isAllDay) {
        const days = Math.round(dayNumberOf(event.end.local) - dayNumberOf(event.start.local));
        const first = dayNumber({
          year: Number(occurrence.date!.slice(0, 4)),
          month: Number(occurrence.date!.slice(5, 7)),
          day: Number(occurrence.date!.slice(8, 10)),
        });
        const s = dateOfDay(first);
        const e = dateOfDay(first + days);
        start = { dateTime: formatLocal({ ...event.start.local, ...s }, 7), timeZone: prefs.zoneLabel };
        end = { dateTime: formatLocal({ ...event.end.local, ...e }, 7), timeZone: prefs.zoneLabel };
      } else {
        start = renderTime(occurrence.startMs, event.start, false, prefs);
        end = renderTime(occurrence.endMs, event.end, false, prefs);
      }
    }
    const id = isOccurrence ? occurrence.id : event.id;
    const out: GraphEvent = {
      '@odata.etag': `W/"${event.changeKey}"`,
      id,
      createdDateTime: isoSevenDigits(event.created),
      lastModifiedDateTime: isoSevenDigits(event.modified),
      changeKey: event.changeKey,
      categories: [...event.categories],
      transactionId: event.transactionId,
      originalStartTimeZone: event.start.label,
      originalEndTimeZone: event.end.label,
      iCalUId: event.iCalUId,
      uid: event.iCalUId,
      reminderMinutesBeforeStart: event.reminderMinutesBeforeStart,
      isReminderOn: event.isReminderOn,
      hasAttachments: false,
      subject: event.subject,
      bodyPreview: plain.slice(0, 255),
      importance: event.importance,
      sensitivity: event.sensitivity,
      isAllDay: event.isAllDay,
      isCancelled: event.isCancelled,
      isOrganizer: true,
      responseRequested: true,
      seriesMasterId: isOccurrence ? master.id : null,
      showAs: event.showAs,
      type: exception
        ? 'exception'
        : isOccurrence
          ? 'occurrence'
          : event.recurrence
            ? 'seriesMaster'
            : 'singleInstance',
      webLink: `${baseUrl}/owa/?itemid=${encodeURIComponent(id)}&exvsurl=1&path=/calendar/item`,
      onlineMeetingUrl: null,
      isOnlineMeeting: false,
      onlineMeetingProvider: 'unknown',
      allowNewTimeProposals: true,
      occurrenceId: isOccurrence ? `OID.${master.id}.${occurrence.date}` : null,
      isDraft: false,
      hideAttendees: false,
      responseStatus: { response: 'organizer', time: '0001-01-01T00:00:00Z' },
      body: { contentType: bodyType, content },
      start,
      end,
      location: event.location
        ? {
            displayName: event.location,
            locationType: 'default',
            uniqueId: event.location,
            uniqueIdType: 'private',
          }
        : { displayName: '', locationType: 'default', uniqueIdType: 'unknown', address: {}, coordinates: {} },
      locations: event.location
        ? [
            {
              displayName: event.location,
              locationType: 'default',
              uniqueId: event.location,
              uniqueIdType: 'private',
            },
          ]
        : [],
      recurrence: isOccurrence || !event.recurrence ? null : structuredClone(event.recurrence),
      attendees: structuredClone(event.attendees),
      organizer: { emailAddress: { name: calendar.account.displayName, address: calendar.account.upn } },
      onlineMeeting: null,
    };
    if (opts.expandExtended !== undefined && opts.expandExtended !== null) {
      const wanted = opts.expandExtended;
      out.singleValueExtendedProperties = [...event.extended]
        .filter(([propertyId]) => wanted === true || propertyId.toLowerCase() === wanted.toLowerCase())
        .map(([propertyId, value]) => ({ id: propertyId, value }));
    }
    let result = out;
    if (opts.select && opts.select.length > 0) {
      const keep = new Set([...opts.select.map((name) => name.toLowerCase()), 'id', '@odata.etag']);
      if (opts.expandExtended) keep.add('singlevalueextendedproperties');
      result = Object.fromEntries(
        Object.entries(out).filter(([key]) => keep.has(key.toLowerCase())),
      ) as GraphEvent;
    }
    return opts.delta ? ({ '@odata.type': '#microsoft.graph.event', ...result } as GraphEvent) : result;
  }

  function dayNumberOf(local: LocalDateTime): number {
    return dayNumber(local);
  }

  // -------------------------------------------------------- notifications

  const notifier = new Batcher<string, { event: StoredEvent; changeType: string }>(
    options.notificationDelayMs ?? 0,
    (subscriptionId, items) => {
      const subscription = subscriptions.get(subscriptionId);
      if (!subscription || subscription.deleted || subscription.expiration <= Date.now()) return;
      const account = accounts.get(subscription.account);
      const userId = account?.id ?? subscription.account;
      const value = items.map(({ event, changeType }) => {
        const resource = `Users/${userId}/Events/${event.id}`;
        const notification: Record<string, unknown> = {
          subscriptionId,
          subscriptionExpirationDateTime: isoSevenDigits(subscription.expiration).replace(/Z$/, '+00:00'),
          changeType,
          resource,
          resourceData: {
            '@odata.type': '#Microsoft.Graph.Event',
            '@odata.id': resource,
            '@odata.etag': `W/"${event.changeKey}"`,
            id: event.id,
          },
        };
        if (subscription.clientState !== null) notification.clientState = subscription.clientState;
        notification.tenantId = tenantId;
        return notification;
      });
      for (let i = 0; i < value.length; i += 100) {
        const chunk = value.slice(i, i + 100);
        subscription.queue = subscription.queue.then(async () => {
          if (subscription.deleted || closed) return;
          const result = await post(subscription.notificationUrl, {
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body: JSON.stringify({ value: chunk }),
            timeoutMs: options.notificationTimeoutMs ?? 5000,
          });
          notificationLog.push({
            at: new Date().toISOString(),
            kind: 'notification',
            subscriptionId,
            url: subscription.notificationUrl,
            count: chunk.length,
            status: result.status,
            error: result.error,
          });
        });
      }
    },
  );

  async function validateEndpoint(url: string, subscriptionId: string | null): Promise<boolean> {
    const validationToken = `Validation: Testing client application reachability for subscription Request-Id: ${uuid()}`;
    const target = new URL(url);
    target.searchParams.append('validationToken', validationToken);
    const result = await post(target.toString(), {
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      timeoutMs: options.validationTimeoutMs ?? 10_000,
    });
    notificationLog.push({
      at: new Date().toISOString(),
      kind: 'validation',
      subscriptionId,
      url,
      count: 0,
      status: result.status,
      error: result.error,
    });
    return (
      result.status === 200 &&
      (result.contentType ?? '').toLowerCase().startsWith('text/plain') &&
      result.body === validationToken
    );
  }

  function subscriptionInfo(subscription: Subscription): SubscriptionInfo {
    return {
      id: subscription.id,
      resource: subscription.resource,
      changeType: subscription.changeType,
      notificationUrl: subscription.notificationUrl,
      clientState: subscription.clientState,
      expirationDateTime: isoSevenDigits(subscription.expiration),
      account: subscription.account,
      calendarId: subscription.calendarId,
      active: !subscription.deleted && subscription.expiration > Date.now(),
    };
  }

  function renderSubscription(subscription: Subscription, withContext: boolean) {
    const body: Record<string, unknown> = {};
    if (withContext) body['@odata.context'] = `${baseUrl}/v1.0/$metadata#subscriptions/$entity`;
    Object.assign(body, {
      id: subscription.id,
      resource: subscription.resource,
      applicationId: subscription.clientId,
      changeType: subscription.changeType,
      clientState: subscription.clientState,
      notificationUrl: subscription.notificationUrl,
      notificationQueryOptions: null,
      lifecycleNotificationUrl: subscription.lifecycleNotificationUrl,
      expirationDateTime: isoSevenDigits(subscription.expiration),
      creatorId: accounts.get(subscription.account)?.id ?? null,
      includeResourceData: null,
      latestSupportedTlsVersion: subscription.latestSupportedTlsVersion,
      encryptionCertificate: null,
      encryptionCertificateId: null,
      notificationUrlAppId: null,
    });
    return body;
  }

  function liveSubscription(id: string, clientId: string, account: string): Subscription {
    const subscription = subscriptions.get(id);
    if (
      !subscription ||
      subscription.deleted ||
      subscription.expiration <= Date.now() ||
      subscription.clientId !== clientId ||
      subscription.account !== account
    )
      throw gerr(404, 'ResourceNotFound', 'The object was not found.');
    return subscription;
  }

  function expirationOf(value: unknown): number {
    if (typeof value !== 'string')
      throw gerr(400, 'InvalidRequest', 'expirationDateTime is a required property.');
    const parsed = parseDateTime(value);
    if (!parsed) throw gerr(400, 'InvalidRequest', 'expirationDateTime is not a valid date.');
    const ms =
      parsed.offsetMinutes === null
        ? localToUtc(parsed.local, 'UTC')
        : Date.UTC(
            parsed.local.year,
            parsed.local.month - 1,
            parsed.local.day,
            parsed.local.hour,
            parsed.local.minute,
            parsed.local.second,
            parsed.local.millisecond,
          ) -
          parsed.offsetMinutes * 60_000;
    const now = Date.now();
    if (ms <= now) throw gerr(400, 'InvalidRequest', 'Subscription expiration must be in the future.');
    if (ms > now + MAX_SUBSCRIPTION_MINUTES * 60_000 + 60_000)
      throw gerr(
        400,
        'InvalidRequest',
        `Subscription expiration can only be ${MAX_SUBSCRIPTION_MINUTES} minutes in the future.`,
      );
    return ms;
  }

  // ---------------------------------------------------------------- OAuth

  const aadError = (
    status: number,
    error: string,
    code: number,
    message: string,
    response: Exchange['response'],
  ) => {
    const traceId = uuid();
    const correlationId = uuid();
    const timestamp = new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
    sendJson(
      response,
      status,
      {
        error,
        error_description: `AADSTS${code}: ${message}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
        error_codes: [code],
        timestamp,
        trace_id: traceId,
        correlation_id: correlationId,
        error_uri: `${baseUrl}/error?code=${code}`,
      },
      { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' },
    );
  };

  function canonicalScope(scope: string): string[] {
    if (scope.toLowerCase() === `${GRAPH}.default` || scope.toLowerCase() === '.default')
      return ['Calendars.ReadWrite', 'User.Read'];
    const short = scope.toLowerCase().startsWith(GRAPH) ? scope.slice(GRAPH.length) : scope;
    const known = KNOWN_SCOPES.find((candidate) => candidate.toLowerCase() === short.toLowerCase());
    return [known ?? short];
  }

  function normaliseScopes(scope: string): string[] {
    return [
      ...new Set(
        scope
          .split(/[\s+]+/)
          .filter(Boolean)
          .flatMap(canonicalScope),
      ),
    ];
  }

  function authorize(exchange: Exchange) {
    const { response } = exchange;
    const q = exchange.url.searchParams;
    const clientId = q.get('client_id');
    const redirectUri = q.get('redirect_uri');
    if (!clientId || (options.clientId && clientId !== options.clientId))
      return htmlPage(
        response,
        400,
        'Sign in: AADSTS700016',
        `AADSTS700016: Application with identifier '${clientId ?? ''}' was not found in the directory.`,
      );
    if (!isHttpUrl(redirectUri) || (options.redirectUris && !options.redirectUris.includes(redirectUri)))
      return htmlPage(
        response,
        400,
        'Sign in: AADSTS50011',
        `AADSTS50011: The redirect URI '${redirectUri ?? ''}' specified in the request does not match the redirect URIs configured for the application '${clientId}'.`,
      );
    const state = q.get('state');
    const responseMode = q.get('response_mode') ?? 'query';
    const back = (params: Record<string, string>) => {
      const all = { ...params };
      if (state !== null) all.state = state;
      if (responseMode === 'form_post') {
        const inputs = Object.entries(all)
          .map(
            ([key, value]) => `<input type="hidden" name="${escapeHtml(key)}" value="${escapeHtml(value)}">`,
          )
          .join('');
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(
          `<!doctype html><html><head><title>Working...</title></head><body onload="document.forms[0].submit()">` +
            `<form method="POST" action="${escapeHtml(redirectUri)}">${inputs}<noscript><button>Continue</button></noscript></form></body></html>`,
        );
        return;
      }
      const target = new URL(redirectUri);
      for (const [key, value] of Object.entries(all)) target.searchParams.set(key, value);
      redirect(response, target.toString());
    };
    const fail = (error: string, code: number, message: string) =>
      back({ error, error_description: `AADSTS${code}: ${message}` });
    if (responseMode !== 'query' && responseMode !== 'form_post')
      return fail(
        'invalid_request',
        900144,
        `response_mode '${responseMode}' is not supported by this emulator.`,
      );
    const responseType = q.get('response_type');
    if (responseType !== 'code')
      return fail(
        'unsupported_response_type',
        700054,
        `response_type '${responseType ?? ''}' is not enabled for the application.`,
      );
    const scope = q.get('scope');
    if (!scope)
      return fail(
        'invalid_request',
        900144,
        "The request body must contain the following parameter: 'scope'.",
      );
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? (challenge ? 'plain' : null);
    if (method !== null && method !== 'S256' && method !== 'plain')
      return fail('invalid_request', 501491, `Invalid code_challenge_method: '${method}'.`);
    if (challenge !== null && !/^[A-Za-z0-9\-._~]{43,128}$/.test(challenge))
      return fail('invalid_request', 501491, 'Invalid size of Code_Challenge parameter.');
    const prompt = q.get('prompt');
    if (prompt !== null && !['login', 'none', 'consent', 'select_account'].includes(prompt))
      return fail('invalid_request', 90023, `Invalid prompt value: '${prompt}'.`);
    if (q.get('deny') === '1')
      return fail('access_denied', 65004, 'User declined to consent to access the app.');
    const upn = q.get('user') ?? q.get('login_hint') ?? defaultAccount;
    let account: Account;
    try {
      account = addAccount(upn);
    } catch {
      return fail('invalid_request', 50034, 'The user account does not exist.');
    }
    const existing = oauth.grantOf(account.upn, clientId);
    if (prompt === 'none' && !existing)
      return fail(
        'consent_required',
        65001,
        `The user or administrator has not consented to use the application with ID '${clientId}'.`,
      );
    const scopes = normaliseScopes(scope);
    const code = oauth.issueCode({
      account: account.upn,
      clientId,
      redirectUri,
      scopes,
      challenge,
      method,
      nonce: q.get('nonce'),
      issueRefreshToken: scopes.includes('offline_access'),
    });
    back({ code, session_state: uuid() });
  }

  function token(exchange: Exchange) {
    const { request, response } = exchange;
    const form = formOf(exchange.body);
    const grantType = form.get('grant_type');
    if (!grantType)
      return aadError(
        400,
        'invalid_request',
        900144,
        "The request body must contain the following parameter: 'grant_type'.",
        response,
      );
    const credentials = clientCredentials(request, form);
    if (credentials.error) return aadError(401, 'invalid_client', 7000215, credentials.error, response);
    const clientId = credentials.clientId;
    if (!clientId)
      return aadError(
        400,
        'invalid_request',
        900144,
        "The request body must contain the following parameter: 'client_id'.",
        response,
      );
    if (options.clientId && clientId !== options.clientId)
      return aadError(
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory.`,
        response,
      );
    if (options.clientSecret !== undefined) {
      if (!credentials.clientSecret)
        return aadError(
          401,
          'invalid_client',
          7000218,
          "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
          response,
        );
      if (credentials.clientSecret !== options.clientSecret)
        return aadError(
          401,
          'invalid_client',
          7000215,
          'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
          response,
        );
    }
    const failure = (reason: OAuthFailure) => {
      switch (reason) {
        case 'code_unknown':
          return aadError(
            400,
            'invalid_grant',
            9002313,
            'Invalid request. Request is malformed or invalid.',
            response,
          );
        case 'code_used':
          return aadError(
            400,
            'invalid_grant',
            54005,
            'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
            response,
          );
        case 'code_expired':
        case 'refresh_expired':
          return aadError(
            400,
            'invalid_grant',
            70008,
            'The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.',
            response,
          );
        case 'redirect_mismatch':
          return aadError(
            400,
            'invalid_grant',
            50148,
            'The redirect_uri in the token request does not match the one used in the authorization request.',
            response,
          );
        case 'verifier_missing':
        case 'verifier_mismatch':
          return aadError(
            400,
            'invalid_grant',
            501481,
            'The Code_Verifier does not match the code_challenge supplied in the authorization request.',
            response,
          );
        case 'refresh_unknown':
          return aadError(
            400,
            'invalid_grant',
            9002313,
            'Invalid request. Request is malformed or invalid.',
            response,
          );
        case 'refresh_revoked':
          return aadError(
            400,
            'invalid_grant',
            50173,
            'The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.',
            response,
          );
        case 'client_mismatch':
          return aadError(400, 'invalid_grant', 70000, 'Provided grant is invalid or malformed.', response);
        case 'scope_exceeds':
          return aadError(
            400,
            'invalid_scope',
            70011,
            'The provided request must include a valid scope that the user has consented to.',
            response,
          );
      }
    };
    let result: ReturnType<OAuthCore['redeemCode']>;
    if (grantType === 'authorization_code') {
      const code = form.get('code');
      if (!code)
        return aadError(
          400,
          'invalid_request',
          900144,
          "The request body must contain the following parameter: 'code'.",
          response,
        );
      result = oauth.redeemCode({
        code,
        clientId,
        redirectUri: form.get('redirect_uri'),
        verifier: form.get('code_verifier'),
      });
    } else if (grantType === 'refresh_token') {
      const refreshToken = form.get('refresh_token');
      if (!refreshToken)
        return aadError(
          400,
          'invalid_request',
          900144,
          "The request body must contain the following parameter: 'refresh_token'.",
          response,
        );
      const scope = form.get('scope');
      const requested = scope ? normaliseScopes(scope).filter((s) => s !== 'offline_access') : null;
      result = oauth.refreshGrant({ refreshToken, clientId, scopes: requested, rotate: true });
    } else {
      return aadError(
        400,
        'unsupported_grant_type',
        70003,
        `The app requested an unsupported grant type '${grantType}'.`,
        response,
      );
    }
    if (!result.ok) return failure(result.failure);
    const issued = result.issued;
    const granted = issued.scopes.filter((scope) => scope !== 'offline_access');
    const body: Record<string, unknown> = {
      token_type: 'Bearer',
      scope: granted.join(' '),
      expires_in: issued.expiresIn,
      ext_expires_in: issued.expiresIn,
      access_token: issued.accessToken,
    };
    if (issued.refreshToken) body.refresh_token = issued.refreshToken;
    if (issued.scopes.includes('openid')) {
      const account = accounts.get(issued.account);
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        ver: '2.0',
        iss: `${baseUrl}/${tenantId}/v2.0`,
        sub: randomToken(16),
        aud: issued.clientId,
        exp: now + 3600,
        iat: now,
        nbf: now,
        name: account?.displayName ?? issued.account,
        preferred_username: issued.account,
        oid: account?.id ?? uuid(),
        tid: tenantId,
      };
      if (issued.scopes.includes('email')) claims.email = issued.account;
      if (issued.nonce) claims.nonce = issued.nonce;
      body.id_token = signer.sign(claims);
    }
    sendJson(response, 200, body, { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' });
  }

  // ------------------------------------------------------------------ API

  function requireScope(
    scopes: string[],
    allowed: string[],
    code = 'ErrorAccessDenied',
    message = 'Access is denied. Check credentials and try again.',
  ) {
    if (!scopes.some((scope) => allowed.includes(scope))) throw gerr(403, code, message);
  }

  function requireEditable(calendar: Calendar): void {
    if (!calendar.canEdit)
      throw gerr(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  }

  function parseBody(exchange: Exchange): Record<string, unknown> {
    const body = jsonObject(exchange.body);
    if (!body) throw gerr(400, 'RequestBodyRead', 'Invalid JSON. The request body could not be read.');
    return body;
  }

  function selectOf(q: URLSearchParams): string[] | null {
    const raw = q.get('$select');
    return raw
      ? raw
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : null;
  }

  function expandOf(q: URLSearchParams): string | true | null {
    const raw = q.get('$expand');
    if (!raw) return null;
    const match = /^singleValueExtendedProperties(?:\(\$filter=id eq '([^']*)'\))?$/i.exec(raw.trim());
    if (!match) throw gerr(400, 'BadRequest', `The $expand '${raw}' is not supported by this emulator.`);
    return match[1] ?? true;
  }

  function refuseUnsupported(q: URLSearchParams): void {
    for (const name of ['$filter', '$search', '$orderby'])
      if (q.has(name))
        throw gerr(400, 'BadRequest', `The query option '${name}' is not supported by this emulator.`);
  }

  function windowOf(q: URLSearchParams): { from: number; to: number } {
    const startText = q.get('startDateTime') ?? q.get('startdatetime');
    const endText = q.get('endDateTime') ?? q.get('enddatetime');
    if (!startText || !endText)
      throw gerr(
        400,
        'ErrorInvalidParameter',
        'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.',
      );
    const parse = (text: string) => {
      const parsed = parseDateTime(text);
      if (!parsed) throw gerr(400, 'ErrorInvalidParameter', `The value '${text}' of parameter is invalid.`);
      const l = parsed.local;
      return (
        Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second, l.millisecond) -
        (parsed.offsetMinutes ?? 0) * 60_000
      );
    };
    const from = parse(startText);
    const to = parse(endText);
    if (to <= from)
      throw gerr(400, 'ErrorInvalidParameter', 'The end of the time window must be after its start.');
    return { from, to };
  }

  interface DeltaState {
    c: string; // calendar uid
    e: number; // epoch
    f: number; // window from
    t: number; // window to
    s: number | null; // since (null: full sync)
    b: number; // bound (seq snapshot of the round's first request)
    a: number; // entries with seq <= a are done
    p: number; // seq of a partly emitted entry (0: none)
    o: number; // rows of entry p already emitted
    sel: string[] | null;
  }

  function deltaRows(
    calendar: Calendar,
    event: StoredEvent,
    state: DeltaState,
    prefs: Preferences,
  ): GraphEvent[] {
    const current = instances(event.id, shapeOf(event), state.f, state.t);
    const rows: GraphEvent[] = [];
    for (const occurrence of current)
      rows.push(render(calendar, event, { prefs, occurrence, select: state.sel, delta: true }));
    if (state.s !== null) {
      const currentIds = new Set(current.map((occurrence) => occurrence.id));
      const history = event.history;
      let first = 0;
      for (let i = history.length - 1; i >= 0; i -= 1)
        if (history[i]!.seq <= state.s) {
          first = i;
          break;
        }
      const removed = new Set<string>();
      for (const shape of history.slice(first))
        for (const occurrence of instances(event.id, shape, state.f, state.t))
          if (!currentIds.has(occurrence.id)) removed.add(occurrence.id);
      for (const id of removed)
        rows.push({
          '@odata.type': '#microsoft.graph.event',
          id,
          '@removed': { reason: 'deleted' },
        } as unknown as GraphEvent);
    }
    return rows;
  }

  function delta(exchange: Exchange, calendar: Calendar, prefs: Preferences) {
    const q = exchange.url.searchParams;
    const skipToken = q.get('$skiptoken') ?? q.get('$skipToken');
    const deltaToken = q.get('$deltatoken') ?? q.get('$deltaToken');
    const expired = () =>
      gerr(
        410,
        'SyncStateNotFound',
        `The sync state generation is not found; generation=${epoch - 1};[highest=${epoch}].`,
      );
    let state: DeltaState;
    if (skipToken || deltaToken) {
      const decoded = codec.decode(skipToken ?? deltaToken) as unknown as
        | (DeltaState & { k?: string })
        | null;
      if (!decoded || decoded.c !== calendar.uid || decoded.k !== (skipToken ? 'skip' : 'delta'))
        throw gerr(410, 'SyncStateInvalid', 'The sync state is not valid for this request.');
      if (decoded.e !== epoch) throw expired();
      state = skipToken ? decoded : { ...decoded, s: decoded.b, b: seq, a: decoded.b, p: 0, o: 0 };
    } else {
      const { from, to } = windowOf(q);
      refuseUnsupported(q);
      state = {
        c: calendar.uid,
        e: epoch,
        f: from,
        t: to,
        s: null,
        b: seq,
        a: 0,
        p: 0,
        o: 0,
        sel: selectOf(q),
      };
    }
    const pageSize = prefs.pageSize ?? defaultPageSize;
    const value: GraphEvent[] = [];
    let cursor: DeltaState | null = null;
    let doneSeq = state.a;
    for (const event of calendar.log.scan(state.a, state.b)) {
      if (state.s === null && event.deleted) {
        doneSeq = event.seq;
        continue;
      }
      const rows = deltaRows(calendar, event, state, prefs);
      let index = event.seq === state.p ? state.o : 0;
      if (index >= rows.length) {
        doneSeq = event.seq;
        continue;
      }
      if (value.length === pageSize) {
        cursor = { ...state, a: doneSeq, p: event.seq, o: index };
        break;
      }
      while (index < rows.length && value.length < pageSize) value.push(rows[index++]!);
      if (index < rows.length) {
        cursor = { ...state, a: doneSeq, p: event.seq, o: index };
        break;
      }
      doneSeq = event.seq;
    }
    const path = exchange.url.pathname;
    const body: Record<string, unknown> = { '@odata.context': `${baseUrl}/v1.0/$metadata#Collection(event)` };
    if (cursor)
      body['@odata.nextLink'] = `${baseUrl}${path}?$skiptoken=${codec.encode({ ...cursor, k: 'skip' })}`;
    else body['@odata.deltaLink'] = `${baseUrl}${path}?$deltatoken=${codec.encode({ ...state, k: 'delta' })}`;
    body.value = value;
    return body;
  }

  function calendarView(exchange: Exchange, calendar: Calendar, prefs: Preferences) {
    const q = exchange.url.searchParams;
    refuseUnsupported(q);
    const { from, to } = windowOf(q);
    const select = selectOf(q);
    const top = Math.min(
      Number(q.get('$top') ?? prefs.pageSize ?? defaultPageSize) || defaultPageSize,
      MAX_PAGE_SIZE,
    );
    const skip = Math.max(Number(q.get('$skip') ?? 0) || 0, 0);
    const all: { event: StoredEvent; occurrence: Occurrence }[] = [];
    for (const event of calendar.log.scan(0, seq))
      for (const occurrence of instances(event.id, shapeOf(event), from, to)) all.push({ event, occurrence });
    all.sort((a, b) => a.occurrence.startMs - b.occurrence.startMs);
    const page = all.slice(skip, skip + top);
    const body: Record<string, unknown> = { '@odata.context': `${baseUrl}/v1.0/$metadata#Collection(event)` };
    body.value = page.map(({ event, occurrence }) => render(calendar, event, { prefs, occurrence, select }));
    if (skip + top < all.length) {
      const next = new URL(exchange.url.toString());
      next.searchParams.set('$top', String(top));
      next.searchParams.set('$skip', String(skip + top));
      body['@odata.nextLink'] = `${baseUrl}${next.pathname}${next.search.replace(/%24/g, '$')}`;
    }
    return body;
  }

  function listEvents(exchange: Exchange, calendar: Calendar, prefs: Preferences) {
    const q = exchange.url.searchParams;
    refuseUnsupported(q);
    const select = selectOf(q);
    const expand = expandOf(q);
    const topRaw = q.get('$top');
    const top = topRaw === null ? defaultPageSize : Number(topRaw);
    if (!Number.isInteger(top) || top < 1) throw gerr(400, 'BadRequest', `Invalid $top value: ${topRaw}`);
    const pageSize = Math.min(top, MAX_PAGE_SIZE);
    const skip = Number(q.get('$skip') ?? 0);
    if (!Number.isInteger(skip) || skip < 0) throw gerr(400, 'BadRequest', 'Invalid $skip value.');
    const value: GraphEvent[] = [];
    let index = 0;
    let more = false;
    for (const event of calendar.log.scan(0, seq)) {
      if (event.deleted) continue;
      if (index++ < skip) continue;
      if (value.length === pageSize) {
        more = true;
        break;
      }
      value.push(render(calendar, event, { prefs, select, expandExtended: expand }));
    }
    const body: Record<string, unknown> = {
      '@odata.context': `${baseUrl}/v1.0/$metadata#users('${encodeURIComponent(calendar.account.upn)}')/calendars('${calendar.id}')/events`,
      value,
    };
    if (more) {
      const next = new URL(exchange.url.toString());
      next.searchParams.set('$top', String(pageSize));
      next.searchParams.set('$skip', String(skip + pageSize));
      body['@odata.nextLink'] = `${baseUrl}${next.pathname}${next.search.replace(/%24/g, '$')}`;
    }
    return body;
  }

  function findEvent(account: Account, eventId: string): Calendar {
    const masterId = OCCURRENCE_ID.exec(eventId)?.[1];
    for (const calendar of account.calendars.values()) {
      const event = calendar.log.get(eventId) ?? (masterId ? calendar.log.get(masterId) : undefined);
      if (event && !event.deleted) return calendar;
    }
    throw itemNotFound();
  }

  async function subscriptionsApi(
    exchange: Exchange,
    s: string[],
    access: { account: string; clientId: string; scopes: string[] },
  ) {
    const { method, response } = exchange;
    const account = accountOf(access.account);
    if (s.length === 1 && method === 'GET') {
      const value = [...subscriptions.values()]
        .filter(
          (x) =>
            !x.deleted &&
            x.expiration > Date.now() &&
            x.clientId === access.clientId &&
            x.account === account.upn,
        )
        .map((x) => renderSubscription(x, false));
      return sendJson(response, 200, { '@odata.context': `${baseUrl}/v1.0/$metadata#subscriptions`, value });
    }
    if (s.length === 1 && method === 'POST') {
      const body = parseBody(exchange);
      const changeType = body.changeType;
      if (typeof changeType !== 'string' || changeType === '')
        throw gerr(400, 'InvalidRequest', 'changeType is a required property.');
      const changeTypes = changeType.split(',').map((type) => type.trim());
      if (changeTypes.some((type) => !['created', 'updated', 'deleted'].includes(type)))
        throw gerr(400, 'InvalidRequest', `Invalid 'changeType' attribute: '${changeType}'.`);
      if (!isHttpUrl(body.notificationUrl))
        throw gerr(400, 'InvalidRequest', 'The notificationUrl must be an absolute http(s) URL.');
      if (
        body.lifecycleNotificationUrl !== undefined &&
        body.lifecycleNotificationUrl !== null &&
        !isHttpUrl(body.lifecycleNotificationUrl)
      )
        throw gerr(400, 'InvalidRequest', 'The lifecycleNotificationUrl must be an absolute http(s) URL.');
      if (
        body.clientState !== undefined &&
        body.clientState !== null &&
        (typeof body.clientState !== 'string' || body.clientState.length > 128)
      )
        throw gerr(400, 'InvalidRequest', 'clientState must be a string of at most 128 characters.');
      if (typeof body.resource !== 'string')
        throw gerr(400, 'InvalidRequest', 'resource is a required property.');
      const resource = body.resource;
      const match =
        /^\/?(?:me|users\/([^/]+))\/(?:calendars\/([^/]+)|calendars\('([^']+)'\)|calendar)\/events$/i.exec(
          resource,
        ) ?? /^\/?(?:me|users\/([^/]+))\/events$/i.exec(resource);
      if (!match)
        throw gerr(400, 'InvalidRequest', `Resource '${resource}' is not supported for this operation.`);
      const user = match[1];
      if (user && user.toLowerCase() !== account.upn.toLowerCase() && user !== account.id)
        throw gerr(
          403,
          'ExtensionError',
          'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access is denied.]',
        );
      const calendarId = match[2] ? decodeURIComponent(match[2]) : (match[3] ?? account.defaultCalendarId);
      const calendar = account.calendars.get(calendarId);
      if (!calendar)
        throw gerr(
          404,
          'ExtensionError',
          'Operation: Create; Exception: [Status Code: NotFound; Reason: The specified object was not found in the store.]',
        );
      requireScope(
        access.scopes,
        READ_SCOPES,
        'ExtensionError',
        'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access is denied.]',
      );
      const expiration = expirationOf(body.expirationDateTime);
      if ([...subscriptions.values()].filter((x) => !x.deleted).length >= MAX_SUBSCRIPTIONS)
        throw gerr(403, 'ExtensionError', 'Too many subscriptions.');
      const notificationUrl = body.notificationUrl as string;
      const lifecycleNotificationUrl = (body.lifecycleNotificationUrl as string | undefined) ?? null;
      const id = uuid();
      if (!(await validateEndpoint(notificationUrl, id)))
        throw gerr(
          400,
          'ValidationError',
          'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.',
        );
      if (lifecycleNotificationUrl && !(await validateEndpoint(lifecycleNotificationUrl, id)))
        throw gerr(
          400,
          'ValidationError',
          'Subscription validation request failed. Lifecycle notification endpoint must respond with 200 OK to validation request.',
        );
      const subscription: Subscription = {
        id,
        resource,
        calendarUid: calendar.uid,
        calendarId: calendar.id,
        changeTypes: new Set(changeTypes),
        changeType,
        notificationUrl,
        lifecycleNotificationUrl,
        clientState: (body.clientState as string | undefined) ?? null,
        expiration,
        account: account.upn,
        clientId: access.clientId,
        latestSupportedTlsVersion:
          typeof body.latestSupportedTlsVersion === 'string' ? body.latestSupportedTlsVersion : 'v1_2',
        deleted: false,
        queue: Promise.resolve(),
      };
      subscriptions.set(id, subscription);
      return sendJson(response, 201, renderSubscription(subscription, true));
    }
    if (s.length === 2) {
      const subscription = liveSubscription(s[1]!, access.clientId, account.upn);
      if (method === 'GET') return sendJson(response, 200, renderSubscription(subscription, true));
      if (method === 'PATCH') {
        const body = parseBody(exchange);
        if (body.expirationDateTime !== undefined)
          subscription.expiration = expirationOf(body.expirationDateTime);
        if (body.notificationUrl !== undefined) {
          if (!isHttpUrl(body.notificationUrl))
            throw gerr(400, 'InvalidRequest', 'The notificationUrl must be an absolute http(s) URL.');
          if (!(await validateEndpoint(body.notificationUrl, subscription.id)))
            throw gerr(
              400,
              'ValidationError',
              'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.',
            );
          subscription.notificationUrl = body.notificationUrl;
        }
        return sendJson(response, 200, renderSubscription(subscription, true));
      }
      if (method === 'DELETE') {
        subscription.deleted = true;
        subscriptions.delete(subscription.id);
        return sendEmpty(response, 204);
      }
    }
    throw gerr(400, 'BadRequest', `Unsupported request: ${method} ${exchange.url.pathname}`);
  }

  async function api(exchange: Exchange, record: RecordedRequest) {
    const { request, response, method, url } = exchange;
    const authorization = header(request, 'authorization');
    const bearer = authorization && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : null;
    const access = oauth.verifyAccess(bearer);
    if (access === 'invalid' || access === 'expired') {
      const message = !bearer
        ? 'Access token is empty.'
        : access === 'expired'
          ? 'Lifetime validation failed, the token is expired.'
          : 'IDX14100: JWT is not well formed, there are no dots (.).';
      throw gerr(401, 'InvalidAuthenticationToken', message, {
        'www-authenticate': `Bearer realm="", authorization_uri="${baseUrl}/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"`,
      });
    }
    record.account = access.account;
    const account = accountOf(access.account);
    const prefs = preferences(request);
    const q = url.searchParams;
    const ifMatch = header(request, 'if-match');
    let s = exchange.segments.slice(1); // after v1.0
    if (s[0] === 'users' && s.length >= 2) {
      const user = s[1]!;
      if (user.toLowerCase() !== account.upn.toLowerCase() && user !== account.id)
        throw gerr(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
      s = ['me', ...s.slice(2)];
    }
    const headers: Record<string, string> = { 'request-id': uuid() };
    if (prefs.applied.length > 0) headers['preference-applied'] = prefs.applied.join(', ');
    const reply = (status: number, body: unknown) =>
      sendJson(
        response,
        status,
        body,
        headers,
        'application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8',
      );

    if (s[0] === 'subscriptions') return subscriptionsApi(exchange, s, access);
    if (s[0] !== 'me') throw gerr(400, 'BadRequest', `Resource not found for the segment '${s[0] ?? ''}'.`);

    if (s.length === 1 && method === 'GET') {
      requireScope(
        access.scopes,
        USER_SCOPES,
        'Authorization_RequestDenied',
        'Insufficient privileges to complete the operation.',
      );
      return reply(200, {
        '@odata.context': `${baseUrl}/v1.0/$metadata#users/$entity`,
        businessPhones: [],
        displayName: account.displayName,
        givenName: account.displayName,
        jobTitle: null,
        mail: account.upn,
        mobilePhone: null,
        officeLocation: null,
        preferredLanguage: 'en-US',
        surname: null,
        userPrincipalName: account.upn,
        id: account.id,
      });
    }

    requireScope(access.scopes, READ_SCOPES);
    // Normalise `/me/calendar/...`, `/me/events`, `/me/calendarView` to the default calendar.
    let calendar: Calendar;
    let rest: string[];
    if (s[1] === 'calendars' && s.length >= 3) {
      calendar = calendarOf(account, s[2]!);
      rest = s.slice(3);
    } else if (s[1] === 'calendars' && s.length === 2) {
      if (method !== 'GET')
        throw gerr(405, 'ErrorInvalidRequest', 'Creating calendars is not supported by this emulator.');
      const value = [...account.calendars.values()].map(renderCalendar);
      return reply(200, {
        '@odata.context': `${baseUrl}/v1.0/$metadata#users('${encodeURIComponent(account.upn)}')/calendars`,
        value,
      });
    } else if (s[1] === 'calendar') {
      calendar = calendarOf(account, account.defaultCalendarId);
      rest = s.slice(2);
    } else if (s[1] === 'events' || s[1] === 'calendarView') {
      calendar =
        s[1] === 'events' && s.length >= 3
          ? findEvent(account, s[2]!)
          : calendarOf(account, account.defaultCalendarId);
      rest = s.slice(1);
    } else throw gerr(400, 'BadRequest', `Resource not found for the segment '${s[1] ?? ''}'.`);

    if (rest.length === 0 && method === 'GET')
      return reply(200, {
        '@odata.context': `${baseUrl}/v1.0/$metadata#users('${encodeURIComponent(account.upn)}')/calendars/$entity`,
        ...renderCalendar(calendar),
      });
    if (rest[0] === 'calendarView' && method === 'GET') {
      if (rest.length === 2 && rest[1] === 'delta') return reply(200, delta(exchange, calendar, prefs));
      if (rest.length === 1) return reply(200, calendarView(exchange, calendar, prefs));
    }
    if (rest[0] === 'events') {
      if (rest.length === 1 && method === 'GET') return reply(200, listEvents(exchange, calendar, prefs));
      if (rest.length === 1 && method === 'POST') {
        requireScope(access.scopes, WRITE_SCOPES);
        requireEditable(calendar);
        const event = storeNew(calendar, prepareNew(parseBody(exchange), false));
        headers.location = `${baseUrl}/v1.0/me/events('${event.id}')`;
        return reply(201, {
          '@odata.context': `${baseUrl}/v1.0/$metadata#users('${encodeURIComponent(account.upn)}')/calendars('${calendar.id}')/events/$entity`,
          ...render(calendar, event, { prefs }),
        });
      }
      if (rest.length >= 2) {
        const eventId = rest[1]!;
        if (rest.length === 3 && rest[2] === 'cancel' && method === 'POST') {
          requireScope(access.scopes, WRITE_SCOPES);
          requireEditable(calendar);
          removeEvent(calendar, eventId, null);
          return sendEmpty(response, 202, headers);
        }
        if (rest.length !== 2)
          throw gerr(400, 'BadRequest', `Resource not found for the segment '${rest[2]}'.`);
        const context = `${baseUrl}/v1.0/$metadata#users('${encodeURIComponent(account.upn)}')/calendars('${calendar.id}')/events/$entity`;
        if (method === 'GET') {
          const expand = expandOf(q);
          const select = selectOf(q);
          const stored = calendar.log.get(eventId);
          if (stored && !stored.deleted)
            return reply(200, {
              '@odata.context': context,
              ...render(calendar, stored, { prefs, select, expandExtended: expand }),
            });
          const { master, occurrence } = occurrenceOf(calendar, eventId);
          return reply(200, {
            '@odata.context': context,
            ...render(calendar, master, { prefs, occurrence, select, expandExtended: expand }),
          });
        }
        if (method === 'PATCH') {
          requireScope(access.scopes, WRITE_SCOPES);
          requireEditable(calendar);
          const event = changeEvent(calendar, eventId, parseBody(exchange), ifMatch, false);
          return reply(200, { '@odata.context': context, ...render(calendar, event, { prefs }) });
        }
        if (method === 'DELETE') {
          requireScope(access.scopes, WRITE_SCOPES);
          requireEditable(calendar);
          removeEvent(calendar, eventId, ifMatch);
          return sendEmpty(response, 204, headers);
        }
      }
    }
    throw gerr(400, 'BadRequest', `Unsupported request: ${method} ${url.pathname}`);
  }

  // ---------------------------------------------------------------- admin

  const utcPrefs = (): Preferences => ({
    zoneLabel: 'UTC',
    zoneIana: 'UTC',
    bodyType: null,
    pageSize: null,
    applied: [],
  });

  const controls: CalendarProviderBEmulator = {
    url: '',
    authUrl: '',
    tokenUrl: '',
    apiBase: '',
    defaultAccount,
    env(prefix = 'CALENDAR_PROVIDER_B') {
      return {
        [`${prefix}_CLIENT_ID`]: options.clientId ?? 'calendar-b-emulator-client',
        [`${prefix}_CLIENT_SECRET`]: options.clientSecret ?? 'calendar-b-emulator-secret',
        [`${prefix}_AUTH_URL`]: controls.authUrl,
        [`${prefix}_TOKEN_URL`]: controls.tokenUrl,
        [`${prefix}_API_BASE`]: controls.apiBase,
      };
    },
    createAccount(upn) {
      const account = addAccount(upn);
      return { account: account.upn, id: account.id, defaultCalendarId: account.defaultCalendarId };
    },
    createCalendar: (upn, input) => renderCalendar(addCalendar(accountOf(upn), input)),
    deleteCalendar(upn, calendarId) {
      const account = accountOf(upn);
      const calendar = calendarOf(account, calendarId);
      if (calendar.isDefault)
        throw gerr(400, 'ErrorInvalidRequest', 'The default calendar cannot be deleted.');
      account.calendars.delete(calendar.id);
      calendarsByUid.delete(calendar.uid);
      for (const subscription of subscriptions.values())
        if (subscription.calendarUid === calendar.uid) subscription.deleted = true;
    },
    calendars: (upn) => [...accountOf(upn).calendars.values()].map(renderCalendar),
    createEvent(upn, calendarId, event) {
      const calendar = calendarOf(accountOf(upn), calendarId);
      return render(calendar, storeNew(calendar, prepareNew(event, true)), { prefs: utcPrefs() });
    },
    createEvents(upn, calendarId, events) {
      const calendar = calendarOf(accountOf(upn), calendarId);
      if (!Array.isArray(events)) throw invalid('events must be an array');
      if (calendar.log.size + events.length > maxEvents)
        throw gerr(403, 'ErrorQuotaExceeded', 'The mailbox quota was exceeded.');
      const prepared = events.map((event) => prepareNew(event, true));
      return prepared.map((event) => render(calendar, storeNew(calendar, event), { prefs: utcPrefs() }));
    },
    updateEvent(upn, calendarId, eventId, patch) {
      const calendar = calendarOf(accountOf(upn), calendarId);
      return render(calendar, changeEvent(calendar, eventId, patch, null, true), { prefs: utcPrefs() });
    },
    deleteEvent(upn, calendarId, eventId) {
      removeEvent(calendarOf(accountOf(upn), calendarId), eventId, null);
    },
    getEvent(upn, calendarId, eventId) {
      const calendar = calendarOf(accountOf(upn), calendarId);
      const event = calendar.log.get(eventId);
      if (event && !event.deleted) return render(calendar, event, { prefs: utcPrefs() });
      try {
        const { master, occurrence } = occurrenceOf(calendar, eventId);
        return render(calendar, master, { prefs: utcPrefs(), occurrence });
      } catch {
        return undefined;
      }
    },
    listEvents(upn, calendarId) {
      const calendar = calendarOf(accountOf(upn), calendarId);
      const out: GraphEvent[] = [];
      for (const event of calendar.log.scan(0, seq))
        if (!event.deleted) out.push(render(calendar, event, { prefs: utcPrefs() }));
      return out;
    },
    expireSyncTokens() {
      epoch += 1;
    },
    revokeGrants: (upn) => oauth.revokeGrants(upn),
    expireAccessTokens: (upn) => oauth.expireAccessTokens(upn),
    subscriptions: () => [...subscriptions.values()].map(subscriptionInfo),
    expireSubscriptions() {
      let count = 0;
      const now = Date.now();
      for (const subscription of subscriptions.values())
        if (!subscription.deleted && subscription.expiration > now) {
          subscription.expiration = now - 1;
          count += 1;
        }
      return count;
    },
    notifications: () => notificationLog.list().map((entry) => ({ ...entry })),
    requests: () => requestLog.list(),
    clearRequests: () => requestLog.clear(),
    setBehaviour: (mode, behaviourOptions) => behaviour.set(mode, behaviourOptions),
    reset() {
      notifier.cancel();
      accounts.clear();
      calendarsByUid.clear();
      subscriptions.clear();
      oauth.reset();
      requestLog.clear();
      notificationLog.clear();
      behaviour.set('normal');
      epoch += 1;
      for (const upn of initialAccounts) addAccount(upn);
    },
    close: async () => {},
  };

  async function admin(exchange: Exchange) {
    const { method, response } = exchange;
    const s = exchange.segments.slice(1);
    const ok = (body: unknown, status = 200) => sendJson(response, status, body);
    const input = () => {
      const value = jsonObject(exchange.body);
      if (!value) throw gerr(400, 'RequestBodyRead', 'Body must be a JSON object');
      return value;
    };
    const path = s.join('/');
    if (commonAdminRoute(exchange, path, controls, input, (message) => invalid(message))) return;
    if (method === 'GET' && path === 'subscriptions') return ok(controls.subscriptions());
    if (method === 'POST' && path === 'expire-subscriptions')
      return ok({ expired: controls.expireSubscriptions() });
    if (s[0] === 'accounts') {
      if (s.length === 1 && method === 'POST') {
        const account = input().account;
        if (typeof account !== 'string') throw invalid('account (user principal name) is required');
        return ok(controls.createAccount(account), 201);
      }
      if (s.length === 1 && method === 'GET') return ok([...accounts.keys()]);
      const upn = s[1]!;
      if (s[2] === 'calendars') {
        if (s.length === 3 && method === 'GET') return ok(controls.calendars(upn));
        if (s.length === 3 && method === 'POST')
          return ok(controls.createCalendar(upn, input() as unknown as CreateCalendarInput), 201);
        const calendarId = s[3]!;
        if (s.length === 4 && method === 'DELETE') {
          controls.deleteCalendar(upn, calendarId);
          return sendEmpty(response, 204);
        }
        if (s[4] === 'events') {
          if (s.length === 5 && method === 'GET') return ok({ value: controls.listEvents(upn, calendarId) });
          if (s.length === 5 && method === 'POST') {
            let body: unknown;
            try {
              body = JSON.parse(exchange.body.toString('utf8'));
            } catch {
              throw gerr(400, 'RequestBodyRead', 'Body must be JSON');
            }
            if (Array.isArray(body))
              return ok({ value: controls.createEvents(upn, calendarId, body as GraphEventInput[]) }, 201);
            if (!isPlainObject(body)) throw invalid('Body must be an event or an array of events');
            return ok(controls.createEvent(upn, calendarId, body), 201);
          }
          const eventId = s[5]!;
          if (s.length === 6 && method === 'GET') {
            const event = controls.getEvent(upn, calendarId, eventId);
            if (!event) throw itemNotFound();
            return ok(event);
          }
          if (s.length === 6 && method === 'PATCH')
            return ok(controls.updateEvent(upn, calendarId, eventId, input()));
          if (s.length === 6 && method === 'DELETE') {
            controls.deleteEvent(upn, calendarId, eventId);
            return sendEmpty(response, 204);
          }
        }
      }
    }
    throw gerr(404, 'NotFound', 'Unknown admin route');
  }

  // ---------------------------------------------------------------- routing

  async function handle(exchange: Exchange) {
    const { method, response, segments } = exchange;
    try {
      if (segments[0] === '__admin') return await admin(exchange);
      const tenant = segments[0] ?? '';
      const identity = segments.length >= 3 && segments[1] === 'oauth2' && segments[2] === 'v2.0';
      if (
        method === 'GET' &&
        segments.length === 4 &&
        segments[1] === 'v2.0' &&
        segments[2] === '.well-known' &&
        segments[3] === 'openid-configuration'
      )
        return sendJson(response, 200, {
          issuer: `${baseUrl}/${tenant === 'common' ? '{tenantid}' : tenantId}/v2.0`,
          authorization_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/authorize`,
          token_endpoint: `${baseUrl}/${tenant}/oauth2/v2.0/token`,
          jwks_uri: `${baseUrl}/${tenant}/discovery/v2.0/keys`,
          response_modes_supported: ['query', 'form_post'],
          response_types_supported: ['code'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
          code_challenge_methods_supported: ['plain', 'S256'],
        });
      if (
        method === 'GET' &&
        segments.length === 4 &&
        segments[1] === 'discovery' &&
        segments[2] === 'v2.0' &&
        segments[3] === 'keys'
      )
        return sendJson(response, 200, signer.jwks());
      const isOAuth =
        identity && segments.length === 4 && (segments[3] === 'authorize' || segments[3] === 'token');
      const isApi = segments[0] === 'v1.0';
      if (!isOAuth && !isApi)
        return htmlPage(
          response,
          404,
          'Not Found',
          'The resource you are looking for has been removed, had its name changed, or is temporarily unavailable.',
        );
      const record = requestLog.record(isApi ? 'api' : 'oauth', exchange.request, exchange.url, response);
      const mode = behaviour.take(isApi ? 'api' : 'oauth');
      if (mode === 'hang') return;
      if (mode === 'fail')
        throw gerr(
          503,
          'ServiceNotAvailable',
          'The service is temporarily unavailable. Please try again later.',
          { 'retry-after': '1' },
        );
      if (mode === 'throttle')
        throw gerr(429, 'ApplicationThrottled', 'Application is over its MailboxConcurrency limit.', {
          'retry-after': '1',
        });
      if (isOAuth && segments[3] === 'authorize' && method === 'GET') return authorize(exchange);
      if (isOAuth && segments[3] === 'token' && method === 'POST') return token(exchange);
      if (isApi) return await api(exchange, record);
      return htmlPage(response, 405, 'Method Not Allowed', `${method} is not allowed here.`);
    } catch (error) {
      if (error instanceof GraphApiError) return sendJson(response, error.status, error.body, error.headers);
      throw error;
    }
  }

  const server = await startServer(options, handle, (response) =>
    sendJson(response, 413, {
      error: { code: 'RequestEntityTooLarge', message: 'The request body is too large.' },
    }),
  );
  baseUrl = server.url;
  controls.url = baseUrl;
  controls.authUrl = `${baseUrl}/common/oauth2/v2.0/authorize`;
  controls.tokenUrl = `${baseUrl}/common/oauth2/v2.0/token`;
  controls.apiBase = `${baseUrl}/v1.0`;
  controls.close = async () => {
    closed = true;
    notifier.cancel();
    await server.close();
  };
  for (const upn of initialAccounts) addAccount(upn);
  return controls;
}

// Standalone: PORT=4011 [CLIENT_ID=…] [CLIENT_SECRET=…] npx tsx tools/emulators/calendar-provider-b/server.ts
function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const emulator = await startCalendarProviderBEmulator({
    port: Number(process.env.PORT ?? 0),
    host: process.env.HOST,
    clientId: process.env.CLIENT_ID,
    clientSecret: process.env.CLIENT_SECRET,
    accessTokenTtlSeconds: process.env.ACCESS_TOKEN_TTL ? Number(process.env.ACCESS_TOKEN_TTL) : undefined,
  });
  console.log(`Calendar provider B (Microsoft Graph) emulator listening on ${emulator.url}`);
  for (const [key, value] of Object.entries(emulator.env())) console.log(`${key}=${value}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      emulator.close().then(() => process.exit(0));
    });
  }
}
