// A real HTTP server speaking a subset of the Google Calendar API v3 and of
// Google's OAuth 2.0 endpoints, with in-memory state per user account. Used by
// the tests and, when no provider is configured, in development.
//
//   OAuth:  GET /o/oauth2/v2/auth, POST /token, POST /revoke,
//           GET /.well-known/openid-configuration, /oauth2/v3/certs, /oauth2/v3/userinfo
//   API:    /calendar/v3/users/me/calendarList[/{id}], /calendar/v3/calendars/{id},
//           /calendar/v3/calendars/{id}/events[/{eventId}], .../events/watch,
//           /calendar/v3/channels/stop
//   Tests:  /__admin/... (see README.md next to this file)
//
// Standalone: PORT=4010 npx tsx tools/emulators/calendar-provider-a/server.ts
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
  instantOf,
  isoMillis,
  isValidTimeZone,
  localToUtc,
  parseDate,
  parseDateTime,
  utcToLocal,
} from '../calendar-common/time.js';
import { IdTokenSigner, randomChars, randomToken, StateCodec } from '../calendar-common/tokens.js';

export type { BehaviourMode, BehaviourOptions, RecordedRequest } from '../calendar-common/http.js';

export interface CalendarProviderAEmulatorOptions {
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** Listen host; loopback by default. */
  host?: string;
  /** When set, authorize and token insist on this client id; otherwise any client id is accepted. */
  clientId?: string;
  /** When set, the token endpoint insists on this secret (body or HTTP Basic); otherwise any secret. */
  clientSecret?: string;
  /** When set, only these redirect URIs are registered; otherwise any absolute http(s) URI. */
  redirectUris?: string[];
  /** Initial account e-mails; the first is the default account. Default `['user@calendar-a.test']`. */
  accounts?: string[];
  /** Access-token lifetime (`expires_in`); default 3599. 0 makes every token expired at once. */
  accessTokenTtlSeconds?: number;
  /** Authorization-code lifetime; default 600. */
  authorizationCodeTtlSeconds?: number;
  /** Refresh-token lifetime; unset (default) means they do not expire. */
  refreshTokenTtlSeconds?: number;
  /** Changes within this window are announced by one push message per channel; default 0 (next tick). */
  notificationDelayMs?: number;
  /** Timeout of each push message; default 5000. */
  notificationTimeoutMs?: number;
  /** Request body limit; default 1 MiB. */
  maxBodyBytes?: number;
  /** Events (tombstones included) a calendar may hold; default 200,000. */
  maxEventsPerCalendar?: number;
}

/** An event as the API shows it (`kind: 'calendar#event'`). */
export interface GoogleEvent {
  kind: 'calendar#event';
  etag: string;
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  [field: string]: unknown;
}

/** An event body as the API takes it (insert, update, patch). */
export type GoogleEventInput = Record<string, unknown>;

export interface CalendarListEntry {
  kind: 'calendar#calendarListEntry';
  etag: string;
  id: string;
  summary: string;
  timeZone: string;
  accessRole: AccessRole;
  primary?: boolean;
  [field: string]: unknown;
}

export type AccessRole = 'owner' | 'writer' | 'reader' | 'freeBusyReader';

export interface CreateCalendarInput {
  summary: string;
  /** IANA zone; default `UTC`. */
  timeZone?: string;
  /** Default `owner`; `reader` calendars refuse writes through the API (403 requiredAccessLevel). */
  accessRole?: AccessRole;
  description?: string;
  /** Default `c_<random>@group.calendar.google.com`. */
  id?: string;
}

export interface ChannelInfo {
  id: string;
  resourceId: string;
  resourceUri: string;
  account: string;
  calendarId: string;
  address: string;
  token: string | null;
  /** Milliseconds since the epoch. */
  expiration: number;
  /** Number of the last message sent (the `sync` message is 1). */
  messageNumber: number;
  active: boolean;
}

export interface NotificationRecord {
  at: string;
  channelId: string;
  address: string;
  state: 'sync' | 'exists';
  messageNumber: number;
  /** The receiver's status; null when it could not be reached. */
  status: number | null;
  error: string | null;
}

export interface CalendarProviderAEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** `<url>/o/oauth2/v2/auth` (Google: https://accounts.google.com/o/oauth2/v2/auth). */
  authUrl: string;
  /** `<url>/token` (Google: https://oauth2.googleapis.com/token). */
  tokenUrl: string;
  /** `<url>/revoke` (Google: https://oauth2.googleapis.com/revoke). */
  revokeUrl: string;
  /** `<url>/calendar/v3` (Google: https://www.googleapis.com/calendar/v3). */
  apiBase: string;
  /** The account authorize picks without `login_hint`/`user`. */
  defaultAccount: string;
  /** The service's settings for this emulator, e.g. `CALENDAR_PROVIDER_A_AUTH_URL`. */
  env(prefix?: string): Record<string, string>;
  /** Adds an account (no-op when it exists) with its primary calendar, whose id is the e-mail. */
  createAccount(account: string): { account: string; primaryCalendarId: string };
  createCalendar(account: string, input: CreateCalendarInput): CalendarListEntry;
  deleteCalendar(account: string, calendarId: string): void;
  calendars(account: string): CalendarListEntry[];
  /** Creates an event as `events.insert` would (validated the same way); `calendarId` may be `primary`. */
  createEvent(account: string, calendarId: string, event: GoogleEventInput): GoogleEvent;
  /** Creates many events in one go: one push message per channel, not one per event. */
  createEvents(account: string, calendarId: string, events: GoogleEventInput[]): GoogleEvent[];
  /** Changes an event as `events.patch` would. */
  updateEvent(account: string, calendarId: string, eventId: string, patch: GoogleEventInput): GoogleEvent;
  /** Deletes an event as `events.delete` would (it stays as a cancelled tombstone for incremental sync). */
  deleteEvent(account: string, calendarId: string, eventId: string): void;
  getEvent(account: string, calendarId: string, eventId: string): GoogleEvent | undefined;
  listEvents(account: string, calendarId: string, options?: { showDeleted?: boolean }): GoogleEvent[];
  /** Every sync token and page token issued so far answers 410 fullSyncRequired from now on. */
  expireSyncTokens(): void;
  /** Revokes every grant (of one account when given): refresh and access tokens stop working. */
  revokeGrants(account?: string): number;
  /** Makes live access tokens expired (401) while refresh tokens keep working. */
  expireAccessTokens(account?: string): number;
  channels(): ChannelInfo[];
  /** Ends every channel as if its expiration had passed. */
  expireChannels(): number;
  notifications(): NotificationRecord[];
  /** API and OAuth calls so far, oldest first (admin calls are not recorded). */
  requests(): RecordedRequest[];
  clearRequests(): void;
  /** Failure injection: `fail` 503, `throttle` 429, `hang` never answers. */
  setBehaviour(mode: BehaviourMode, options?: BehaviourOptions): void;
  /** Back to the initial accounts with empty calendars; tokens, channels and logs forgotten. */
  reset(): void;
  close(): Promise<void>;
}

/** A failure in Google's wire format; admin helpers throw it too. */
export class GoogleApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${JSON.stringify(body)}`);
  }
}

interface Account {
  email: string;
  sub: string;
  name: string;
  primaryId: string;
  calendars: Map<string, Calendar>;
}

interface Calendar {
  uid: string;
  id: string;
  account: Account;
  summary: string;
  description: string | null;
  timeZone: string;
  accessRole: AccessRole;
  primary: boolean;
  resourceId: string;
  log: ChangeLog<StoredEvent>;
  updated: number;
  version: number;
}

interface StoredEvent {
  id: string;
  seq: number;
  status: 'confirmed' | 'tentative' | 'cancelled';
  created: number;
  updated: number;
  sequence: number;
  iCalUID: string;
  fields: Record<string, unknown>;
  etag: string;
  startMs: number;
  endMs: number;
}

interface Channel {
  id: string;
  resourceId: string;
  resourceUri: string;
  calendarUid: string;
  account: string;
  clientId: string;
  calendarId: string;
  address: string;
  token: string | null;
  expiration: number;
  messageNumber: number;
  stopped: boolean;
  queue: Promise<void>;
}

const SCOPE_BASE = 'https://www.googleapis.com/auth/';
const SCOPES = {
  calendarList: ['calendar', 'calendar.readonly', 'calendar.calendarlist', 'calendar.calendarlist.readonly'],
  calendars: ['calendar', 'calendar.readonly', 'calendar.calendars', 'calendar.calendars.readonly'],
  readEvents: [
    'calendar',
    'calendar.readonly',
    'calendar.events',
    'calendar.events.readonly',
    'calendar.events.owned',
    'calendar.events.owned.readonly',
  ],
  writeEvents: ['calendar', 'calendar.events', 'calendar.events.owned'],
};
const SHORT_SCOPES: Record<string, string> = {
  email: `${SCOPE_BASE}userinfo.email`,
  profile: `${SCOPE_BASE}userinfo.profile`,
};
const WRITABLE_FIELDS = [
  'summary',
  'description',
  'location',
  'colorId',
  'start',
  'end',
  'endTimeUnspecified',
  'recurrence',
  'reminders',
  'status',
  'transparency',
  'visibility',
  'attendees',
  'extendedProperties',
  'source',
  'guestsCanInviteOthers',
  'guestsCanModify',
  'guestsCanSeeOtherGuests',
  'anyoneCanAddSelf',
  'sequence',
];
const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';
const DEFAULT_REMINDERS = [{ method: 'popup', minutes: 10 }];
const CHANNEL_DEFAULT_TTL_SECONDS = 604_800;
const CHANNEL_MAX_TTL_SECONDS = 30 * 86_400;
const MAX_ACCOUNTS = 1000;
const MAX_CALENDARS_PER_ACCOUNT = 100;
const MAX_CHANNELS = 1000;

const gerr = (status: number, reason: string, message: string, extra: Record<string, string> = {}) =>
  new GoogleApiError(status, {
    error: { errors: [{ domain: 'global', reason, message, ...extra }], code: status, message },
  });
const notFound = () => gerr(404, 'notFound', 'Not Found');
const badRequest = (message: string, reason = 'invalid') => gerr(400, reason, message);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => structuredClone(value);

/** A deep copy without `null` members (a null in a body means "no value"). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null) out[key] = withoutNulls(member);
  return out;
}

/** Patch semantics: members replace, objects merge recursively, arrays are replaced, null clears. */
function mergePatch(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isPlainObject(value) && isPlainObject(out[key]))
      out[key] = mergePatch(out[key] as Record<string, unknown>, value);
    else out[key] = withoutNulls(value);
  }
  return out;
}

function formatOffsetDateTime(ms: number, timeZone: string): string {
  const local = utcToLocal(ms, timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  const offsetMinutes = Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const base = `${String(local.year).padStart(4, '0')}-${pad(local.month)}-${pad(local.day)}T${pad(local.hour)}:${pad(local.minute)}:${pad(local.second)}`;
  if (offsetMinutes === 0) return `${base}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${base}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export async function startCalendarProviderAEmulator(
  options: CalendarProviderAEmulatorOptions = {},
): Promise<CalendarProviderAEmulator> {
  const initialAccounts = options.accounts?.length ? options.accounts : ['user@calendar-a.test'];
  const defaultAccount = initialAccounts[0]!;
  const maxEvents = options.maxEventsPerCalendar ?? 200_000;
  const oauth = new OAuthCore({
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    codeTtlSeconds: options.authorizationCodeTtlSeconds ?? 600,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds,
    prefixes: { code: '4/0A', access: 'ya29.a0', refresh: '1//0g' },
  });
  const codec = new StateCodec();
  const signer = new IdTokenSigner();
  const behaviour = new Behaviour();
  const requestLog = new RequestLog();
  const notificationLog = new Ring<NotificationRecord>(5000);
  const accounts = new Map<string, Account>();
  const calendarsByUid = new Map<string, Calendar>();
  const channels = new Map<string, Channel>();
  let seq = 0;
  let epoch = 1;
  let baseUrl = '';

  // ---------------------------------------------------------------- state

  function addAccount(email: string): Account {
    const existing = accounts.get(email);
    if (existing) return existing;
    if (accounts.size >= MAX_ACCOUNTS) throw gerr(403, 'quotaExceeded', 'Too many emulator accounts');
    if (!email || email.length > 254) throw badRequest('Invalid account');
    const account: Account = {
      email,
      sub: randomChars(21, '0123456789'),
      name: email.split('@')[0] ?? email,
      primaryId: email,
      calendars: new Map(),
    };
    accounts.set(email, account);
    addCalendar(account, { summary: email, timeZone: 'UTC', accessRole: 'owner', id: email }, true);
    return account;
  }

  function addCalendar(account: Account, input: CreateCalendarInput, primary = false): Calendar {
    if (account.calendars.size >= MAX_CALENDARS_PER_ACCOUNT)
      throw gerr(403, 'quotaExceeded', 'Calendar usage limits exceeded.');
    if (typeof input.summary !== 'string' || input.summary === '')
      throw badRequest('Missing title.', 'required');
    const timeZone = input.timeZone ?? 'UTC';
    if (!isValidTimeZone(timeZone)) throw badRequest('Invalid time zone definition.');
    const accessRole = input.accessRole ?? 'owner';
    if (!['owner', 'writer', 'reader', 'freeBusyReader'].includes(accessRole))
      throw badRequest('Invalid accessRole');
    const id = input.id ?? `c_${randomChars(32, '0123456789abcdef')}@group.calendar.google.com`;
    if (account.calendars.has(id)) throw gerr(409, 'duplicate', 'The requested identifier already exists.');
    const calendar: Calendar = {
      uid: randomToken(12),
      id,
      account,
      summary: input.summary,
      description: input.description ?? null,
      timeZone,
      accessRole,
      primary,
      resourceId: randomChars(27, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'),
      log: new ChangeLog<StoredEvent>(),
      updated: Date.now(),
      version: 1,
    };
    account.calendars.set(id, calendar);
    calendarsByUid.set(calendar.uid, calendar);
    return calendar;
  }

  function accountOf(email: string): Account {
    const account = accounts.get(email);
    if (!account) throw gerr(404, 'notFound', `No such account: ${email}`);
    return account;
  }

  function calendarOf(account: Account, calendarId: string): Calendar {
    const calendar = account.calendars.get(calendarId === 'primary' ? account.primaryId : calendarId);
    if (!calendar) throw notFound();
    return calendar;
  }

  function listEntry(calendar: Calendar): CalendarListEntry {
    const entry: CalendarListEntry = {
      kind: 'calendar#calendarListEntry',
      etag: `"${calendar.updated}${String(calendar.version).padStart(3, '0')}"`,
      id: calendar.id,
      summary: calendar.summary,
      timeZone: calendar.timeZone,
      accessRole: calendar.accessRole,
    };
    if (calendar.description !== null) entry.description = calendar.description;
    Object.assign(entry, {
      colorId: calendar.primary ? '14' : '7',
      backgroundColor: calendar.primary ? '#9fe1e7' : '#42d692',
      foregroundColor: '#000000',
      selected: true,
      defaultReminders:
        calendar.accessRole === 'owner' || calendar.accessRole === 'writer' ? clone(DEFAULT_REMINDERS) : [],
      conferenceProperties: { allowedConferenceSolutionTypes: ['hangoutsMeet'] },
    });
    if (calendar.primary) {
      entry.primary = true;
      entry.notificationSettings = {
        notifications: [
          { type: 'eventCreation', method: 'email' },
          { type: 'eventChange', method: 'email' },
          { type: 'eventCancellation', method: 'email' },
          { type: 'eventResponse', method: 'email' },
        ],
      };
    }
    return entry;
  }

  // ------------------------------------------------------------- events

  function timeOf(
    value: unknown,
    which: 'start' | 'end',
    calendar: Calendar,
  ): { kind: 'date' | 'dateTime'; ms: number; zoned: boolean } {
    if (!isPlainObject(value)) throw badRequest(`Missing ${which} time.`, 'required');
    const { date, dateTime, timeZone } = value;
    if (timeZone !== undefined && (typeof timeZone !== 'string' || !isValidTimeZone(timeZone)))
      throw badRequest(`Invalid time zone definition for ${which} time.`);
    const zone = (timeZone as string | undefined) ?? calendar.timeZone;
    if (date !== undefined && dateTime !== undefined)
      throw badRequest(`Invalid ${which} time: give either date or dateTime.`);
    if (date !== undefined) {
      const parsed = parseDate(date);
      if (!parsed) throw badRequest(`Invalid ${which} time.`);
      return {
        kind: 'date',
        ms: localToUtc({ ...parsed, hour: 0, minute: 0, second: 0, millisecond: 0 }, zone),
        zoned: timeZone !== undefined,
      };
    }
    if (dateTime !== undefined) {
      const parsed = parseDateTime(dateTime);
      if (!parsed) throw badRequest(`Invalid ${which} time.`);
      if (parsed.offsetMinutes === null && timeZone === undefined)
        throw badRequest(`Missing time zone definition for ${which} time.`, 'required');
      return { kind: 'dateTime', ms: instantOf(parsed, zone), zoned: timeZone !== undefined };
    }
    throw badRequest(`Missing ${which} time.`, 'required');
  }

  /** Validates the writable fields of an event; answers its start and end instants. */
  function validate(fields: Record<string, unknown>, calendar: Calendar): { startMs: number; endMs: number } {
    for (const key of ['summary', 'description', 'location', 'colorId'] as const) {
      if (fields[key] !== undefined && typeof fields[key] !== 'string')
        throw badRequest(`Invalid value for: ${key}`);
    }
    if (typeof fields.description === 'string' && fields.description.length > 65_536)
      throw badRequest('Description too long.');
    if (
      fields.status !== undefined &&
      !['confirmed', 'tentative', 'cancelled'].includes(fields.status as string)
    )
      throw badRequest('Invalid value for: status');
    if (
      fields.transparency !== undefined &&
      !['opaque', 'transparent'].includes(fields.transparency as string)
    )
      throw badRequest('Invalid value for: transparency');
    if (
      fields.visibility !== undefined &&
      !['default', 'public', 'private', 'confidential'].includes(fields.visibility as string)
    )
      throw badRequest('Invalid value for: visibility');
    const start = timeOf(fields.start, 'start', calendar);
    const end = timeOf(fields.end, 'end', calendar);
    if (start.kind !== end.kind)
      throw badRequest('Start and end times must either both be date or both be dateTime.');
    if (end.ms < start.ms || (start.kind === 'date' && end.ms === start.ms))
      throw badRequest('The specified time range is empty.', 'timeRangeEmpty');
    if (fields.recurrence !== undefined) {
      const lines = fields.recurrence;
      if (!Array.isArray(lines) || lines.length > 100) throw badRequest('Invalid recurrence rule.');
      for (const line of lines) {
        if (
          typeof line !== 'string' ||
          line.length > 4096 ||
          !/^(RRULE|EXRULE|RDATE|EXDATE)[:;]/i.test(line) ||
          (/^RRULE/i.test(line) && !/FREQ=(SECONDLY|MINUTELY|HOURLY|DAILY|WEEKLY|MONTHLY|YEARLY)/i.test(line))
        )
          throw badRequest('Invalid recurrence rule.');
      }
      if (lines.length > 0 && start.kind === 'dateTime') {
        if (!start.zoned) throw badRequest('Missing time zone definition for start time.', 'required');
        if (!end.zoned) throw badRequest('Missing time zone definition for end time.', 'required');
      }
    }
    if (fields.reminders !== undefined) {
      const reminders = fields.reminders;
      if (!isPlainObject(reminders)) throw badRequest('Invalid value for: reminders');
      if (reminders.useDefault !== undefined && typeof reminders.useDefault !== 'boolean')
        throw badRequest('Invalid value for: reminders.useDefault');
      const overrides = reminders.overrides;
      if (overrides !== undefined) {
        if (!Array.isArray(overrides)) throw badRequest('Invalid value for: reminders.overrides');
        if (overrides.length > 5) throw badRequest('Too many reminders.', 'tooManyReminders');
        for (const override of overrides) {
          if (
            !isPlainObject(override) ||
            !['email', 'popup'].includes(override.method as string) ||
            !Number.isInteger(override.minutes) ||
            (override.minutes as number) < 0 ||
            (override.minutes as number) > 40_320
          )
            throw badRequest('Invalid reminder.', 'invalid');
        }
        if (reminders.useDefault === true && overrides.length > 0)
          throw badRequest(
            'Cannot specify both default reminders and overrides at the same time.',
            'cannotUseDefaultRemindersAndSpecifyOverride',
          );
      }
    }
    if (fields.extendedProperties !== undefined) {
      const properties = fields.extendedProperties;
      if (!isPlainObject(properties)) throw badRequest('Invalid value for: extendedProperties');
      for (const scope of ['private', 'shared'] as const) {
        const map = properties[scope];
        if (map === undefined) continue;
        if (!isPlainObject(map) || Object.keys(map).length > 300)
          throw badRequest(`Invalid extendedProperties.${scope}`);
        for (const [key, value] of Object.entries(map))
          if (typeof value !== 'string' || key.length > 44 || value.length > 1024)
            throw badRequest(`Invalid extendedProperties.${scope}`);
      }
    }
    if (fields.attendees !== undefined) {
      if (!Array.isArray(fields.attendees) || fields.attendees.length > 300)
        throw badRequest('Invalid attendees');
      for (const attendee of fields.attendees)
        if (!isPlainObject(attendee) || typeof attendee.email !== 'string')
          throw badRequest('Invalid attendee email.');
    }
    return { startMs: start.ms, endMs: end.ms };
  }

  /** The writable members of a body; with `keepNulls` (patch) a null stays to clear the field. */
  function pick(input: Record<string, unknown>, keepNulls = false): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const key of WRITABLE_FIELDS) {
      const value = input[key];
      if (value === undefined) continue;
      if (value === null) {
        if (keepNulls) fields[key] = null;
      } else fields[key] = keepNulls ? clone(value) : withoutNulls(value);
    }
    return fields;
  }

  function touch(calendar: Calendar, event: StoredEvent): void {
    seq += 1;
    event.seq = seq;
    event.etag = `"${event.updated}${String(seq % 1000).padStart(3, '0')}"`;
    calendar.log.put(event);
    calendar.updated = event.updated;
    notifier.add(calendar.uid, event.id);
  }

  function storeNew(calendar: Calendar, input: Record<string, unknown>): StoredEvent {
    if (!isPlainObject(input)) throw badRequest('Parse Error', 'parseError');
    if (calendar.log.size >= maxEvents) throw gerr(403, 'quotaExceeded', 'Calendar usage limits exceeded.');
    let id: string;
    if (input.id !== undefined) {
      if (typeof input.id !== 'string' || !/^[a-v0-9]{5,1024}$/.test(input.id))
        throw badRequest('Invalid resource id value.');
      id = input.id;
      if (calendar.log.get(id)) throw gerr(409, 'duplicate', 'The requested identifier already exists.');
    } else {
      do id = randomChars(26, BASE32HEX);
      while (calendar.log.get(id));
    }
    const fields = pick(input);
    const times = validate(fields, calendar);
    const now = Date.now();
    const status = (fields.status as StoredEvent['status'] | undefined) ?? 'confirmed';
    delete fields.status;
    if (typeof input.iCalUID === 'string' && input.iCalUID.length > 1024) throw badRequest('Invalid iCalUID');
    const event: StoredEvent = {
      id,
      seq: 0,
      status,
      created: now,
      updated: now,
      sequence: Number.isInteger(fields.sequence) ? (fields.sequence as number) : 0,
      iCalUID: typeof input.iCalUID === 'string' && input.iCalUID ? input.iCalUID : `${id}@google.com`,
      fields,
      etag: '',
      ...times,
    };
    delete fields.sequence;
    touch(calendar, event);
    return event;
  }

  function checkIfMatch(event: StoredEvent, ifMatch: string | null): void {
    if (ifMatch === null || ifMatch.trim() === '*') return;
    const wanted = ifMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .map((tag) => (tag.startsWith('"') ? tag : `"${tag}"`));
    if (!wanted.includes(event.etag))
      throw gerr(412, 'conditionNotMet', 'Precondition Failed', {
        locationType: 'header',
        location: 'If-Match',
      });
  }

  function changeStored(
    calendar: Calendar,
    eventId: string,
    input: Record<string, unknown>,
    mode: 'patch' | 'update',
    ifMatch: string | null,
  ): StoredEvent {
    if (!isPlainObject(input)) throw badRequest('Parse Error', 'parseError');
    const event = calendar.log.get(eventId);
    if (!event) throw notFound();
    checkIfMatch(event, ifMatch);
    let fields: Record<string, unknown>;
    if (mode === 'patch') {
      const current = { ...event.fields, status: event.status };
      fields = mergePatch(current, pick(input, true));
      for (const which of ['start', 'end'] as const) {
        const patched = input[which];
        const merged = fields[which];
        if (!isPlainObject(patched) || !isPlainObject(merged)) continue;
        if (patched.date !== undefined && patched.dateTime === undefined) delete merged.dateTime;
        if (patched.dateTime !== undefined && patched.date === undefined) delete merged.date;
      }
    } else {
      fields = pick(input);
    }
    const times = validate(fields, calendar);
    const status = (fields.status as StoredEvent['status'] | undefined) ?? 'confirmed';
    delete fields.status;
    const sequence = Number.isInteger(fields.sequence) ? (fields.sequence as number) : event.sequence;
    delete fields.sequence;
    const startChanged =
      JSON.stringify([fields.start, fields.end]) !== JSON.stringify([event.fields.start, event.fields.end]);
    event.fields = fields;
    event.status = status;
    event.startMs = times.startMs;
    event.endMs = times.endMs;
    event.updated = Math.max(Date.now(), event.updated + 1);
    event.sequence = startChanged ? Math.max(sequence, event.sequence + 1) : sequence;
    touch(calendar, event);
    return event;
  }

  function removeStored(calendar: Calendar, eventId: string, ifMatch: string | null): void {
    const event = calendar.log.get(eventId);
    if (!event) throw notFound();
    if (event.status === 'cancelled') throw gerr(410, 'deleted', 'Resource has been deleted');
    checkIfMatch(event, ifMatch);
    event.status = 'cancelled';
    event.updated = Math.max(Date.now(), event.updated + 1);
    touch(calendar, event);
  }

  function render(calendar: Calendar, event: StoredEvent, zone: string | null): GoogleEvent {
    const f = event.fields;
    const out: GoogleEvent = { kind: 'calendar#event', etag: event.etag, id: event.id, status: event.status };
    out.htmlLink = `${baseUrl}/calendar/event?eid=${Buffer.from(`${event.id} ${calendar.id}`).toString('base64url')}`;
    out.created = isoMillis(event.created);
    out.updated = isoMillis(event.updated);
    for (const key of ['summary', 'description', 'location', 'colorId'] as const)
      if (f[key] !== undefined) out[key] = f[key];
    out.creator = { email: calendar.account.email, self: true };
    out.organizer = calendar.primary
      ? { email: calendar.id, self: true }
      : { email: calendar.id, displayName: calendar.summary, self: true };
    const renderZone = zone ?? calendar.timeZone;
    for (const which of ['start', 'end'] as const) {
      const time = f[which] as Record<string, unknown>;
      if (time.date !== undefined) out[which] = clone(time);
      else {
        const rendered: Record<string, unknown> = {
          dateTime: formatOffsetDateTime(which === 'start' ? event.startMs : event.endMs, renderZone),
        };
        if (time.timeZone !== undefined) rendered.timeZone = time.timeZone;
        out[which] = rendered;
      }
    }
    for (const key of [
      'endTimeUnspecified',
      'recurrence',
      'transparency',
      'visibility',
      'guestsCanInviteOthers',
      'guestsCanModify',
      'guestsCanSeeOtherGuests',
      'anyoneCanAddSelf',
    ] as const)
      if (f[key] !== undefined && !(key === 'recurrence' && Array.isArray(f[key]) && f[key].length === 0))
        out[key] = clone(f[key]);
    out.iCalUID = event.iCalUID;
    out.sequence = event.sequence;
    if (f.attendees !== undefined) out.attendees = clone(f.attendees);
    if (f.extendedProperties !== undefined) out.extendedProperties = clone(f.extendedProperties);
    const reminders = isPlainObject(f.reminders) ? clone(f.reminders) : { useDefault: true };
    if (reminders.useDefault === undefined) reminders.useDefault = false;
    if (Array.isArray(reminders.overrides) && reminders.overrides.length === 0) delete reminders.overrides;
    out.reminders = reminders;
    if (f.source !== undefined) out.source = clone(f.source);
    out.eventType = 'default';
    return out;
  }

  const minimal = (event: StoredEvent): GoogleEvent => ({
    kind: 'calendar#event',
    etag: event.etag,
    id: event.id,
    status: 'cancelled',
  });

  // -------------------------------------------------------- notifications

  const notifier = new Batcher<string, string>(options.notificationDelayMs ?? 0, (calendarUid) => {
    const now = Date.now();
    for (const channel of channels.values()) {
      if (channel.calendarUid !== calendarUid || channel.stopped) continue;
      if (channel.expiration <= now) continue;
      deliver(channel, 'exists');
    }
  });

  function deliver(channel: Channel, state: 'sync' | 'exists'): void {
    channel.messageNumber = state === 'sync' ? 1 : channel.messageNumber + 1;
    const messageNumber = channel.messageNumber;
    const headers: Record<string, string> = {
      'X-Goog-Channel-ID': channel.id,
      'X-Goog-Channel-Expiration': new Date(channel.expiration).toUTCString(),
      'X-Goog-Message-Number': String(messageNumber),
      'X-Goog-Resource-ID': channel.resourceId,
      'X-Goog-Resource-State': state,
      'X-Goog-Resource-URI': channel.resourceUri,
    };
    if (channel.token !== null) headers['X-Goog-Channel-Token'] = channel.token;
    channel.queue = channel.queue.then(async () => {
      if (channel.stopped) return;
      const result = await post(channel.address, {
        headers,
        timeoutMs: options.notificationTimeoutMs ?? 5000,
      });
      notificationLog.push({
        at: new Date().toISOString(),
        channelId: channel.id,
        address: channel.address,
        state,
        messageNumber,
        status: result.status,
        error: result.error,
      });
    });
  }

  function channelInfo(channel: Channel): ChannelInfo {
    return {
      id: channel.id,
      resourceId: channel.resourceId,
      resourceUri: channel.resourceUri,
      account: channel.account,
      calendarId: channel.calendarId,
      address: channel.address,
      token: channel.token,
      expiration: channel.expiration,
      messageNumber: channel.messageNumber,
      active: !channel.stopped && channel.expiration > Date.now(),
    };
  }

  function pruneChannels(): void {
    const now = Date.now();
    for (const [id, channel] of channels)
      if (channel.stopped || channel.expiration <= now) channels.delete(id);
  }

  // ---------------------------------------------------------------- OAuth

  function normaliseScopes(scope: string): string[] {
    return [
      ...new Set(
        scope
          .split(/[\s+]+/)
          .filter(Boolean)
          .map((item) => SHORT_SCOPES[item] ?? item),
      ),
    ];
  }

  function authorize(exchange: Exchange) {
    const { response } = exchange;
    const q = exchange.url.searchParams;
    const clientId = q.get('client_id');
    const redirectUri = q.get('redirect_uri');
    if (!clientId || (options.clientId && clientId !== options.clientId))
      return htmlPage(response, 401, 'Error 401: invalid_client', 'The OAuth client was not found.');
    if (!isHttpUrl(redirectUri) || (options.redirectUris && !options.redirectUris.includes(redirectUri)))
      return htmlPage(
        response,
        400,
        'Error 400: redirect_uri_mismatch',
        `You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy. redirect_uri=${redirectUri ?? ''}`,
      );
    const invalid = (message: string) => htmlPage(response, 400, 'Error 400: invalid_request', message);
    const state = q.get('state');
    const back = (params: Record<string, string>) => {
      const target = new URL(redirectUri);
      if (state !== null) target.searchParams.set('state', state);
      for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
      redirect(response, target.toString());
    };
    const responseType = q.get('response_type');
    if (!responseType) return invalid('Required parameter is missing: response_type');
    if (responseType !== 'code') return back({ error: 'unsupported_response_type' });
    const scope = q.get('scope');
    if (!scope) return invalid('Missing required parameter: scope');
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? (challenge ? 'plain' : null);
    if (method !== null && method !== 'S256' && method !== 'plain')
      return invalid(`Invalid code_challenge_method value: ${method}`);
    if (challenge !== null && !/^[A-Za-z0-9\-._~]{43,128}$/.test(challenge))
      return invalid('Invalid code_challenge value.');
    if (method !== null && challenge === null) return invalid('Missing code_challenge.');
    const accessType = q.get('access_type') ?? 'online';
    if (accessType !== 'online' && accessType !== 'offline')
      return invalid(`Invalid access_type: ${accessType}`);
    const prompts = (q.get('prompt') ?? '').split(' ').filter(Boolean);
    if (prompts.some((p) => !['none', 'consent', 'select_account'].includes(p)))
      return invalid(`Invalid prompt: ${q.get('prompt')}`);
    if (prompts.includes('none') && prompts.length > 1) return invalid('prompt=none cannot be combined.');
    if (q.get('deny') === '1') return back({ error: 'access_denied' });
    const email = q.get('user') ?? q.get('login_hint') ?? defaultAccount;
    let account: Account;
    try {
      account = addAccount(email);
    } catch {
      return invalid('Unknown account.');
    }
    const existing = oauth.grantOf(account.email, clientId);
    if (prompts.includes('none') && !existing) return back({ error: 'consent_required' });
    let scopes = normaliseScopes(scope);
    if (q.get('include_granted_scopes') === 'true' && existing)
      scopes = [...new Set([...existing.scopes, ...scopes])];
    const consentShown = prompts.includes('consent') || !existing;
    const issueRefreshToken =
      accessType === 'offline' && (consentShown || existing.refreshTokensIssued === 0);
    const code = oauth.issueCode({
      account: account.email,
      clientId,
      redirectUri,
      scopes,
      challenge,
      method,
      nonce: q.get('nonce'),
      issueRefreshToken,
    });
    back({ code, scope: scopes.join(' '), authuser: '0', prompt: consentShown ? 'consent' : 'none' });
  }

  function tokenError(
    response: Exchange['response'],
    status: number,
    error: string,
    description: string,
  ): void {
    sendJson(
      response,
      status,
      { error, error_description: description },
      { pragma: 'no-cache', 'cache-control': 'no-store' },
    );
  }

  function token(exchange: Exchange) {
    const { request, response } = exchange;
    const contentType = header(request, 'content-type') ?? '';
    let form: URLSearchParams;
    if (contentType.includes('application/json')) {
      const json = jsonObject(exchange.body);
      if (!json) return tokenError(response, 400, 'invalid_request', 'Invalid JSON payload received.');
      form = new URLSearchParams();
      for (const [key, value] of Object.entries(json)) if (typeof value === 'string') form.set(key, value);
    } else form = formOf(exchange.body);
    const grantType = form.get('grant_type');
    if (!grantType)
      return tokenError(response, 400, 'invalid_request', 'Required parameter is missing: grant_type');
    const credentials = clientCredentials(request, form);
    if (credentials.error) return tokenError(response, 401, 'invalid_client', credentials.error);
    const clientId = credentials.clientId;
    if (!clientId)
      return tokenError(response, 400, 'invalid_request', 'Could not determine client ID from request.');
    if (options.clientId && clientId !== options.clientId)
      return tokenError(response, 401, 'invalid_client', 'The OAuth client was not found.');
    if (options.clientSecret !== undefined) {
      if (!credentials.clientSecret)
        return tokenError(response, 400, 'invalid_request', 'client_secret is missing.');
      if (credentials.clientSecret !== options.clientSecret)
        return tokenError(response, 401, 'invalid_client', 'Unauthorized');
    }
    const failure = (reason: OAuthFailure) => {
      switch (reason) {
        case 'redirect_mismatch':
          return tokenError(response, 400, 'redirect_uri_mismatch', 'Bad Request');
        case 'code_unknown':
          return tokenError(response, 400, 'invalid_grant', 'Malformed auth code.');
        case 'verifier_missing':
          return tokenError(response, 400, 'invalid_grant', 'Missing code verifier.');
        case 'verifier_mismatch':
          return tokenError(response, 400, 'invalid_grant', 'Invalid code verifier.');
        case 'refresh_unknown':
        case 'refresh_revoked':
        case 'refresh_expired':
          return tokenError(response, 400, 'invalid_grant', 'Token has been expired or revoked.');
        case 'client_mismatch':
          return tokenError(response, 401, 'unauthorized_client', 'Unauthorized');
        case 'scope_exceeds':
          return tokenError(response, 400, 'invalid_scope', 'Some requested scopes were invalid.');
        default:
          return tokenError(response, 400, 'invalid_grant', 'Bad Request');
      }
    };
    let result: ReturnType<OAuthCore['redeemCode']>;
    if (grantType === 'authorization_code') {
      const code = form.get('code');
      if (!code) return tokenError(response, 400, 'invalid_request', 'Missing required parameter: code');
      if (!form.get('redirect_uri'))
        return tokenError(response, 400, 'invalid_request', 'Missing parameter: redirect_uri');
      result = oauth.redeemCode({
        code,
        clientId,
        redirectUri: form.get('redirect_uri'),
        verifier: form.get('code_verifier'),
      });
    } else if (grantType === 'refresh_token') {
      const refreshToken = form.get('refresh_token');
      if (!refreshToken)
        return tokenError(response, 400, 'invalid_request', 'Missing required parameter: refresh_token');
      const scope = form.get('scope');
      result = oauth.refreshGrant({
        refreshToken,
        clientId,
        scopes: scope ? normaliseScopes(scope) : null,
        rotate: false,
      });
    } else {
      return tokenError(response, 400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`);
    }
    if (!result.ok) return failure(result.failure);
    const issued = result.issued;
    const body: Record<string, unknown> = {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
    };
    if (issued.refreshToken) body.refresh_token = issued.refreshToken;
    body.scope = issued.scopes.join(' ');
    body.token_type = 'Bearer';
    if (issued.scopes.includes('openid')) {
      const account = accounts.get(issued.account);
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        iss: baseUrl,
        azp: issued.clientId,
        aud: issued.clientId,
        sub: account?.sub ?? issued.account,
        email: issued.account,
        email_verified: true,
        iat: now,
        exp: now + 3600,
      };
      if (issued.nonce) claims.nonce = issued.nonce;
      body.id_token = signer.sign(claims);
    }
    sendJson(response, 200, body, { pragma: 'no-cache', 'cache-control': 'no-store' });
  }

  function revoke(exchange: Exchange) {
    const form = formOf(exchange.body);
    const value = exchange.url.searchParams.get('token') ?? form.get('token');
    if (!value)
      return tokenError(exchange.response, 400, 'invalid_request', 'Missing required parameter: token');
    if (!oauth.revokeToken(value))
      return tokenError(exchange.response, 400, 'invalid_token', 'Token expired or revoked');
    sendJson(exchange.response, 200, {});
  }

  // ------------------------------------------------------------------ API

  function bearer(request: IncomingMessage, url: URL): string | null {
    const authorization = header(request, 'authorization');
    if (authorization && /^bearer /i.test(authorization)) return authorization.slice(7).trim();
    return url.searchParams.get('access_token');
  }

  function requireScope(scopes: string[], allowed: string[]): void {
    if (
      scopes.some((scope) =>
        allowed.includes(scope.startsWith(SCOPE_BASE) ? scope.slice(SCOPE_BASE.length) : ''),
      )
    )
      return;
    throw new GoogleApiError(
      403,
      {
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [
            { message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' },
          ],
          status: 'PERMISSION_DENIED',
        },
      },
      {
        'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${SCOPE_BASE}${allowed[0]}"`,
      },
    );
  }

  function requireWriter(calendar: Calendar): void {
    if (calendar.accessRole !== 'owner' && calendar.accessRole !== 'writer')
      throw gerr(403, 'requiredAccessLevel', 'You need to have writer access to this calendar.', {});
  }

  function parseBody(exchange: Exchange): Record<string, unknown> {
    const body = jsonObject(exchange.body);
    if (!body) throw gerr(400, 'parseError', 'Parse Error');
    return body;
  }

  function intParam(q: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
    const raw = q.get(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw badRequest(`Invalid value for: ${name}`);
    return Math.min(value, max);
  }

  function boolParam(q: URLSearchParams, name: string): boolean | null {
    const raw = q.get(name);
    if (raw === null) return null;
    if (raw !== 'true' && raw !== 'false') throw badRequest(`Invalid value for: ${name}`);
    return raw === 'true';
  }

  function timeParam(q: URLSearchParams, name: string): number | null {
    const raw = q.get(name);
    if (raw === null) return null;
    const parsed = parseDateTime(raw);
    if (!parsed || parsed.offsetMinutes === null)
      throw badRequest(`Bad Request: ${name} must be RFC3339 with an offset`);
    return instantOf(parsed, 'UTC');
  }

  interface ListState {
    c: string; // calendar uid
    e: number; // epoch
    b: number; // upper bound: seq snapshot of the first page
    a: number; // scan after this seq
    inc: boolean; // incremental (sync token)
    del: boolean; // showDeleted
    tmin: number | null;
    tmax: number | null;
    umin: number | null;
    q: string | null;
    ical: string | null;
  }

  function listEvents(calendar: Calendar, q: URLSearchParams) {
    const maxResults = intParam(q, 'maxResults', 250, 1, 2500);
    if (boolParam(q, 'singleEvents') === true)
      throw badRequest(
        'singleEvents=true is not supported by this emulator (recurring events are not expanded).',
      );
    const orderBy = q.get('orderBy');
    if (orderBy !== null && orderBy !== 'updated') {
      if (orderBy === 'startTime')
        throw badRequest('The requested ordering is not available for the particular query.');
      throw badRequest('Invalid value for: orderBy');
    }
    const zone = q.get('timeZone');
    if (zone !== null && !isValidTimeZone(zone)) throw badRequest('Invalid time zone definition.');
    const pageToken = q.get('pageToken');
    const syncToken = q.get('syncToken');
    let state: ListState;
    if (pageToken) {
      const decoded = codec.decode(pageToken) as unknown as ListState | null;
      if (!decoded || decoded.c !== calendar.uid) throw badRequest('Invalid page token value.');
      if (decoded.e !== epoch)
        throw gerr(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
      state = decoded;
    } else if (syncToken) {
      const restricted = [
        'timeMin',
        'timeMax',
        'q',
        'iCalUID',
        'updatedMin',
        'orderBy',
        'privateExtendedProperty',
        'sharedExtendedProperty',
      ];
      if (restricted.some((name) => q.has(name)) || q.get('showDeleted') === 'false')
        throw gerr(
          400,
          'syncTokenWithRequestRestrictions',
          'Sync token cannot be used with other request restrictions.',
        );
      const decoded = codec.decode(syncToken);
      if (
        !decoded ||
        decoded.c !== calendar.uid ||
        decoded.e !== epoch ||
        typeof decoded.s !== 'number' ||
        decoded.s > seq
      )
        throw gerr(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
      state = {
        c: calendar.uid,
        e: epoch,
        b: seq,
        a: decoded.s,
        inc: true,
        del: true,
        tmin: null,
        tmax: null,
        umin: null,
        q: null,
        ical: null,
      };
    } else {
      state = {
        c: calendar.uid,
        e: epoch,
        b: seq,
        a: 0,
        inc: false,
        del: boolParam(q, 'showDeleted') === true,
        tmin: timeParam(q, 'timeMin'),
        tmax: timeParam(q, 'timeMax'),
        umin: timeParam(q, 'updatedMin'),
        q: q.get('q')?.toLowerCase() ?? null,
        ical: q.get('iCalUID'),
      };
    }
    const matches = (event: StoredEvent): boolean => {
      if (state.inc) return true;
      if (event.status === 'cancelled' && !state.del) return false;
      if (state.ical !== null && event.iCalUID !== state.ical) return false;
      if (state.umin !== null && event.updated < state.umin) return false;
      const recurring = Array.isArray(event.fields.recurrence) && event.fields.recurrence.length > 0;
      if (state.tmax !== null && event.startMs >= state.tmax) return false;
      if (state.tmin !== null && !recurring && event.endMs <= state.tmin) return false;
      if (state.q !== null) {
        const text = ['summary', 'description', 'location']
          .map((key) => (typeof event.fields[key] === 'string' ? (event.fields[key] as string) : ''))
          .join('\n')
          .toLowerCase();
        if (!text.includes(state.q)) return false;
      }
      return true;
    };
    const items: GoogleEvent[] = [];
    let last = state.a;
    let more = false;
    for (const event of calendar.log.scan(state.a, state.b)) {
      if (!matches(event)) continue;
      if (items.length === maxResults) {
        more = true;
        break;
      }
      items.push(event.status === 'cancelled' ? minimal(event) : render(calendar, event, zone));
      last = event.seq;
    }
    const body: Record<string, unknown> = {
      kind: 'calendar#events',
      etag: `"p${calendar.updated}"`,
      summary: calendar.summary,
      description: calendar.description ?? '',
      updated: isoMillis(calendar.updated),
      timeZone: zone ?? calendar.timeZone,
      accessRole: calendar.accessRole,
      defaultReminders:
        calendar.accessRole === 'owner' || calendar.accessRole === 'writer' ? clone(DEFAULT_REMINDERS) : [],
    };
    if (more) body.nextPageToken = codec.encode({ ...state, a: last });
    else body.nextSyncToken = codec.encode({ c: calendar.uid, e: epoch, s: state.b });
    body.items = items;
    return body;
  }

  function watch(
    exchange: Exchange,
    account: Account,
    calendar: Calendar,
    calendarIdInPath: string,
    clientId: string,
  ) {
    const body = parseBody(exchange);
    const { id, type, address, token: channelToken } = body;
    if (typeof id !== 'string' || id === '') throw badRequest('Required: id', 'required');
    if (id.length > 64 || !/^[A-Za-z0-9\-_+/=]+$/.test(id)) throw badRequest('Invalid channel id.');
    if (type !== 'web_hook' && type !== 'webhook')
      throw badRequest(`Invalid value for: type (${String(type)})`);
    if (!isHttpUrl(address))
      throw badRequest(
        'Invalid address: WebHook callback must be an absolute URL.',
        'push.webhookUrlNotHttps',
      );
    if (channelToken !== undefined && (typeof channelToken !== 'string' || channelToken.length > 256))
      throw badRequest('Invalid channel token.');
    pruneChannels();
    if (channels.has(id)) throw badRequest('Channel id not unique', 'channelIdNotUnique');
    if (channels.size >= MAX_CHANNELS) throw gerr(403, 'quotaExceeded', 'Too many channels');
    const now = Date.now();
    let ttlMs = CHANNEL_DEFAULT_TTL_SECONDS * 1000;
    const params = isPlainObject(body.params) ? body.params : {};
    if (params.ttl !== undefined) {
      const ttl = Number(params.ttl);
      if (!Number.isFinite(ttl) || ttl <= 0) throw badRequest('Invalid value for: params.ttl');
      ttlMs = ttl * 1000;
    }
    let expiration = now + ttlMs;
    if (body.expiration !== undefined && body.expiration !== null) {
      const requested = Number(body.expiration);
      if (!Number.isFinite(requested)) throw badRequest('Invalid value for: expiration');
      if (requested <= now) throw badRequest('Expiration time must be in the future.');
      expiration = requested;
    }
    expiration = Math.min(expiration, now + CHANNEL_MAX_TTL_SECONDS * 1000);
    const channel: Channel = {
      id,
      resourceId: calendar.resourceId,
      resourceUri: `${baseUrl}/calendar/v3/calendars/${encodeURIComponent(calendarIdInPath)}/events?alt=json`,
      calendarUid: calendar.uid,
      account: account.email,
      clientId,
      calendarId: calendar.id,
      address,
      token: typeof channelToken === 'string' ? channelToken : null,
      expiration,
      messageNumber: 0,
      stopped: false,
      queue: Promise.resolve(),
    };
    channels.set(id, channel);
    setImmediate(() => deliver(channel, 'sync'));
    const answer: Record<string, unknown> = {
      kind: 'api#channel',
      id,
      resourceId: channel.resourceId,
      resourceUri: channel.resourceUri,
    };
    if (channel.token !== null) answer.token = channel.token;
    answer.expiration = String(expiration);
    return answer;
  }

  function api(exchange: Exchange, record: RecordedRequest) {
    const { request, response, method, url } = exchange;
    const access = oauth.verifyAccess(bearer(request, url));
    if (access === 'invalid' || access === 'expired') {
      return sendJson(
        response,
        401,
        {
          error: {
            code: 401,
            message:
              'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
            errors: [
              {
                message: 'Invalid Credentials',
                domain: 'global',
                reason: 'authError',
                location: 'Authorization',
                locationType: 'header',
              },
            ],
            status: 'UNAUTHENTICATED',
          },
        },
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      );
    }
    record.account = access.account;
    const account = accountOf(access.account);
    const s = exchange.segments.slice(2); // after calendar/v3
    const q = url.searchParams;
    const ifMatch = header(request, 'if-match');
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      sendJson(response, status, body, headers);

    if (s[0] === 'users' && s[1] === 'me' && s[2] === 'calendarList' && method === 'GET') {
      requireScope(access.scopes, SCOPES.calendarList);
      if (s.length === 3) {
        const roles: AccessRole[] = ['freeBusyReader', 'reader', 'writer', 'owner'];
        const minRole = q.get('minAccessRole') as AccessRole | null;
        if (minRole !== null && !roles.includes(minRole))
          throw badRequest('Invalid value for: minAccessRole');
        const entries = [...account.calendars.values()]
          .filter(
            (calendar) => minRole === null || roles.indexOf(calendar.accessRole) >= roles.indexOf(minRole),
          )
          .map(listEntry);
        const maxResults = intParam(q, 'maxResults', 100, 1, 250);
        const offset = q.get('pageToken') ? Number(codec.decode(q.get('pageToken'))?.o ?? Number.NaN) : 0;
        if (!Number.isInteger(offset)) throw badRequest('Invalid page token value.');
        const page = entries.slice(offset, offset + maxResults);
        const body: Record<string, unknown> = { kind: 'calendar#calendarList', etag: `"l${Date.now()}"` };
        if (offset + maxResults < entries.length)
          body.nextPageToken = codec.encode({ o: offset + maxResults });
        else body.nextSyncToken = codec.encode({ l: account.email, s: seq });
        body.items = page;
        return reply(200, body);
      }
      if (s.length === 4) return reply(200, listEntry(calendarOf(account, s[3]!)));
    }

    if (s[0] === 'channels' && s[1] === 'stop' && s.length === 2 && method === 'POST') {
      const body = parseBody(exchange);
      const channel = typeof body.id === 'string' ? channels.get(body.id) : undefined;
      if (
        !channel ||
        channel.resourceId !== body.resourceId ||
        channel.clientId !== access.clientId ||
        channel.stopped
      )
        throw gerr(
          404,
          'notFound',
          `Channel '${String(body.id)}' not found for project '${access.clientId}'`,
        );
      channel.stopped = true;
      channels.delete(channel.id);
      return sendEmpty(response, 204);
    }

    if (s[0] === 'calendars' && s.length >= 2) {
      const calendarId = s[1]!;
      const calendar = calendarOf(account, calendarId);
      if (s.length === 2 && method === 'GET') {
        requireScope(access.scopes, SCOPES.calendars);
        const body: Record<string, unknown> = {
          kind: 'calendar#calendar',
          etag: listEntry(calendar).etag,
          id: calendar.id,
          summary: calendar.summary,
        };
        if (calendar.description !== null) body.description = calendar.description;
        body.timeZone = calendar.timeZone;
        body.conferenceProperties = { allowedConferenceSolutionTypes: ['hangoutsMeet'] };
        return reply(200, body);
      }
      if (s[2] === 'events') {
        if (s.length === 3 && method === 'GET') {
          requireScope(access.scopes, SCOPES.readEvents);
          return reply(200, listEvents(calendar, q));
        }
        if (s.length === 3 && method === 'POST') {
          requireScope(access.scopes, SCOPES.writeEvents);
          requireWriter(calendar);
          const event = storeNew(calendar, parseBody(exchange));
          return reply(200, render(calendar, event, null), { etag: event.etag });
        }
        if (s.length === 4 && s[3] === 'watch' && method === 'POST') {
          requireScope(access.scopes, SCOPES.readEvents);
          return reply(200, watch(exchange, account, calendar, calendarId, access.clientId));
        }
        if (s.length === 4) {
          const eventId = s[3]!;
          if (method === 'GET') {
            requireScope(access.scopes, SCOPES.readEvents);
            const event = calendar.log.get(eventId);
            if (!event) throw notFound();
            const ifNoneMatch = header(request, 'if-none-match') ?? '';
            if (
              ifNoneMatch
                .split(',')
                .map((tag) => tag.trim())
                .includes(event.etag)
            )
              return sendEmpty(response, 304, { etag: event.etag });
            const zone = q.get('timeZone');
            if (zone !== null && !isValidTimeZone(zone)) throw badRequest('Invalid time zone definition.');
            return reply(200, render(calendar, event, zone), { etag: event.etag });
          }
          if (method === 'PATCH' || method === 'PUT') {
            requireScope(access.scopes, SCOPES.writeEvents);
            requireWriter(calendar);
            const event = changeStored(
              calendar,
              eventId,
              parseBody(exchange),
              method === 'PATCH' ? 'patch' : 'update',
              ifMatch,
            );
            return reply(200, render(calendar, event, null), { etag: event.etag });
          }
          if (method === 'DELETE') {
            requireScope(access.scopes, SCOPES.writeEvents);
            requireWriter(calendar);
            removeStored(calendar, eventId, ifMatch);
            return sendEmpty(response, 204);
          }
        }
      }
    }
    throw notFound();
  }

  // ---------------------------------------------------------------- admin

  function adminEvent(account: string, calendarId: string) {
    return calendarOf(accountOf(account), calendarId);
  }

  const controls: CalendarProviderAEmulator = {
    url: '',
    authUrl: '',
    tokenUrl: '',
    revokeUrl: '',
    apiBase: '',
    defaultAccount,
    env(prefix = 'CALENDAR_PROVIDER_A') {
      return {
        [`${prefix}_CLIENT_ID`]: options.clientId ?? 'calendar-a-emulator-client',
        [`${prefix}_CLIENT_SECRET`]: options.clientSecret ?? 'calendar-a-emulator-secret',
        [`${prefix}_AUTH_URL`]: controls.authUrl,
        [`${prefix}_TOKEN_URL`]: controls.tokenUrl,
        [`${prefix}_API_BASE`]: controls.apiBase,
        [`${prefix}_REVOKE_URL`]: controls.revokeUrl,
      };
    },
    createAccount(email) {
      const account = addAccount(email);
      return { account: account.email, primaryCalendarId: account.primaryId };
    },
    createCalendar(email, input) {
      return listEntry(addCalendar(accountOf(email), input));
    },
    deleteCalendar(email, calendarId) {
      const account = accountOf(email);
      const calendar = calendarOf(account, calendarId);
      if (calendar.primary) throw gerr(400, 'cannotDeletePrimaryCalendar', 'Cannot delete primary calendar.');
      account.calendars.delete(calendar.id);
      calendarsByUid.delete(calendar.uid);
      for (const channel of channels.values())
        if (channel.calendarUid === calendar.uid) channel.stopped = true;
    },
    calendars(email) {
      return [...accountOf(email).calendars.values()].map(listEntry);
    },
    createEvent(email, calendarId, event) {
      const calendar = adminEvent(email, calendarId);
      return render(calendar, storeNew(calendar, event), null);
    },
    createEvents(email, calendarId, events) {
      const calendar = adminEvent(email, calendarId);
      if (!Array.isArray(events)) throw badRequest('events must be an array');
      if (calendar.log.size + events.length > maxEvents)
        throw gerr(403, 'quotaExceeded', 'Calendar usage limits exceeded.');
      // All or nothing: validate every event before storing any.
      for (const event of events) {
        if (!isPlainObject(event)) throw badRequest('Parse Error', 'parseError');
        validate(pick(event), calendar);
      }
      return events.map((event) => render(calendar, storeNew(calendar, event), null));
    },
    updateEvent(email, calendarId, eventId, patch) {
      const calendar = adminEvent(email, calendarId);
      return render(calendar, changeStored(calendar, eventId, patch, 'patch', null), null);
    },
    deleteEvent(email, calendarId, eventId) {
      removeStored(adminEvent(email, calendarId), eventId, null);
    },
    getEvent(email, calendarId, eventId) {
      const calendar = adminEvent(email, calendarId);
      const event = calendar.log.get(eventId);
      return event ? render(calendar, event, null) : undefined;
    },
    listEvents(email, calendarId, listOptions = {}) {
      const calendar = adminEvent(email, calendarId);
      const out: GoogleEvent[] = [];
      for (const event of calendar.log.scan(0, seq))
        if (event.status !== 'cancelled' || listOptions.showDeleted) out.push(render(calendar, event, null));
      return out;
    },
    expireSyncTokens() {
      epoch += 1;
    },
    revokeGrants: (email) => oauth.revokeGrants(email),
    expireAccessTokens: (email) => oauth.expireAccessTokens(email),
    channels: () => [...channels.values()].map(channelInfo),
    expireChannels() {
      let count = 0;
      const now = Date.now();
      for (const channel of channels.values())
        if (!channel.stopped && channel.expiration > now) {
          channel.expiration = now - 1;
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
      for (const channel of channels.values()) channel.stopped = true;
      channels.clear();
      oauth.reset();
      requestLog.clear();
      notificationLog.clear();
      behaviour.set('normal');
      epoch += 1;
      for (const email of initialAccounts) addAccount(email);
    },
    close: async () => {},
  };

  async function admin(exchange: Exchange) {
    const { method, response } = exchange;
    const s = exchange.segments.slice(1);
    const ok = (body: unknown, status = 200) => sendJson(response, status, body);
    const input = () => {
      const value = jsonObject(exchange.body);
      if (!value) throw badRequest('Body must be a JSON object', 'parseError');
      return value;
    };
    const path = s.join('/');
    if (commonAdminRoute(exchange, path, controls, input, (message) => badRequest(message))) return;
    if (method === 'GET' && path === 'channels') return ok(controls.channels());
    if (method === 'POST' && path === 'expire-channels') return ok({ expired: controls.expireChannels() });
    if (s[0] === 'accounts') {
      if (s.length === 1 && method === 'POST') {
        const account = input().account;
        if (typeof account !== 'string') throw badRequest('account (e-mail) is required');
        return ok(controls.createAccount(account), 201);
      }
      if (s.length === 1 && method === 'GET') return ok([...accounts.keys()]);
      const email = s[1]!;
      if (s[2] === 'calendars') {
        if (s.length === 3 && method === 'GET') return ok(controls.calendars(email));
        if (s.length === 3 && method === 'POST')
          return ok(controls.createCalendar(email, input() as unknown as CreateCalendarInput), 201);
        const calendarId = s[3]!;
        if (s.length === 4 && method === 'DELETE') {
          controls.deleteCalendar(email, calendarId);
          return sendEmpty(response, 204);
        }
        if (s[4] === 'events') {
          if (s.length === 5 && method === 'GET')
            return ok({
              items: controls.listEvents(email, calendarId, {
                showDeleted: exchange.url.searchParams.get('showDeleted') === 'true',
              }),
            });
          if (s.length === 5 && method === 'POST') {
            let body: unknown;
            try {
              body = JSON.parse(exchange.body.toString('utf8'));
            } catch {
              throw badRequest('Body must be JSON', 'parseError');
            }
            if (Array.isArray(body))
              return ok({ items: controls.createEvents(email, calendarId, body as GoogleEventInput[]) }, 201);
            if (!isPlainObject(body)) throw badRequest('Body must be an event or an array of events');
            return ok(controls.createEvent(email, calendarId, body), 201);
          }
          const eventId = s[5]!;
          if (s.length === 6 && method === 'GET') {
            const event = controls.getEvent(email, calendarId, eventId);
            if (!event) throw notFound();
            return ok(event);
          }
          if (s.length === 6 && method === 'PATCH')
            return ok(controls.updateEvent(email, calendarId, eventId, input()));
          if (s.length === 6 && method === 'DELETE') {
            controls.deleteEvent(email, calendarId, eventId);
            return sendEmpty(response, 204);
          }
        }
      }
    }
    throw notFound();
  }

  // ---------------------------------------------------------------- routing

  async function handle(exchange: Exchange) {
    const { method, response, segments } = exchange;
    const path = exchange.url.pathname;
    try {
      if (segments[0] === '__admin') return await admin(exchange);

      if (method === 'GET' && path === '/.well-known/openid-configuration')
        return sendJson(response, 200, {
          issuer: baseUrl,
          authorization_endpoint: controls.authUrl,
          token_endpoint: controls.tokenUrl,
          userinfo_endpoint: `${baseUrl}/oauth2/v3/userinfo`,
          revocation_endpoint: controls.revokeUrl,
          jwks_uri: `${baseUrl}/oauth2/v3/certs`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', 'email', 'profile'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
          code_challenge_methods_supported: ['plain', 'S256'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
        });
      if (method === 'GET' && path === '/oauth2/v3/certs') return sendJson(response, 200, signer.jwks());

      const isOAuth =
        path === '/o/oauth2/v2/auth' ||
        path === '/token' ||
        path === '/revoke' ||
        path === '/oauth2/v3/userinfo';
      const isApi = path.startsWith('/calendar/v3/');
      if (!isOAuth && !isApi)
        return htmlPage(response, 404, 'Not Found', 'The requested URL was not found on this server.');
      const record = requestLog.record(isApi ? 'api' : 'oauth', exchange.request, exchange.url, response);
      const mode = behaviour.take(isApi ? 'api' : 'oauth');
      if (mode === 'hang') return;
      if (mode === 'fail')
        return sendJson(response, 503, {
          error: {
            code: 503,
            message: 'Backend Error',
            errors: [{ domain: 'global', reason: 'backendError', message: 'Backend Error' }],
          },
        });
      if (mode === 'throttle')
        return sendJson(response, 429, {
          error: {
            code: 429,
            message: 'Rate Limit Exceeded',
            errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' }],
          },
        });

      if (path === '/o/oauth2/v2/auth' && method === 'GET') return authorize(exchange);
      if (path === '/token' && method === 'POST') return token(exchange);
      if (path === '/revoke' && method === 'POST') return revoke(exchange);
      if (path === '/oauth2/v3/userinfo' && method === 'GET') {
        const access = oauth.verifyAccess(bearer(exchange.request, exchange.url));
        if (access === 'invalid' || access === 'expired')
          return sendJson(response, 401, {
            error: 'invalid_request',
            error_description: 'Invalid Credentials',
          });
        const account = accounts.get(access.account);
        return sendJson(response, 200, {
          sub: account?.sub ?? access.account,
          name: account?.name ?? access.account,
          email: access.account,
          email_verified: true,
        });
      }
      if (isApi) return api(exchange, record);
      return htmlPage(response, 405, 'Method Not Allowed', `${method} is not allowed here.`);
    } catch (error) {
      if (error instanceof GoogleApiError) return sendJson(response, error.status, error.body, error.headers);
      throw error;
    }
  }

  const server = await startServer(options, handle, (response) =>
    sendJson(response, 413, {
      error: {
        code: 413,
        message: 'Request Entity Too Large',
        errors: [{ domain: 'global', reason: 'uploadTooLarge', message: 'Request Entity Too Large' }],
      },
    }),
  );
  baseUrl = server.url;
  controls.url = baseUrl;
  controls.authUrl = `${baseUrl}/o/oauth2/v2/auth`;
  controls.tokenUrl = `${baseUrl}/token`;
  controls.revokeUrl = `${baseUrl}/revoke`;
  controls.apiBase = `${baseUrl}/calendar/v3`;
  controls.close = async () => {
    notifier.cancel();
    for (const channel of channels.values()) channel.stopped = true;
    await server.close();
  };
  for (const email of initialAccounts) addAccount(email);
  return controls;
}

// Standalone: PORT=4010 [CLIENT_ID=…] [CLIENT_SECRET=…] npx tsx tools/emulators/calendar-provider-a/server.ts
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
  const emulator = await startCalendarProviderAEmulator({
    port: Number(process.env.PORT ?? 0),
    host: process.env.HOST,
    clientId: process.env.CLIENT_ID,
    clientSecret: process.env.CLIENT_SECRET,
    accessTokenTtlSeconds: process.env.ACCESS_TOKEN_TTL ? Number(process.env.ACCESS_TOKEN_TTL) : undefined,
  });
  console.log(`Calendar provider A (Google Calendar) emulator listening on ${emulator.url}`);
  for (const [key, value] of Object.entries(emulator.env())) console.log(`${key}=${value}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      emulator.close().then(() => process.exit(0));
    });
  }
}
