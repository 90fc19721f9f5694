import { DomainError } from '../../../lib/errors.js';
import type { Reminder, Transparency } from '../../events/schemas.js';

export const SYNC_PROVIDERS = ['calendar_provider_a', 'calendar_provider_b'] as const;
export type SyncProvider = (typeof SYNC_PROVIDERS)[number];

/** Tokens as the provider issued them. Plaintext lives only in memory; the repo seals them. */
export interface TokenSet {
  accessToken: string;
  /** Null when the provider sent none (then the stored one stays). */
  refreshToken: string | null;
  expiresAt: string | null;
  scope: string | null;
}

export interface ExternalCalendar {
  externalId: string;
  name: string;
  primary: boolean;
  /** IANA zone of the calendar when the provider says (A); null otherwise. */
  timezone: string | null;
}

/** A moment as providers write it: a date (all-day) or an instant. */
export type ExternalTime = { date: string } | { instant: string };

/** One external event, normalised. `start`/`end` of all-day events are dates (end exclusive). */
export interface ExternalEvent {
  externalId: string;
  etag: string | null;
  /** Cancelled: deleted at the provider (or a cancelled occurrence, with `seriesId`). */
  cancelled: boolean;
  /** A: set on an occurrence of a recurring series that was moved, changed or cancelled. */
  seriesId: string | null;
  /** A: the start the occurrence had in its series. */
  originalStart: ExternalTime | null;
  /** B: the series master of an occurrence (occurrences arrive expanded). */
  seriesMasterId: string | null;
  title: string;
  description: string | null;
  location: string | null;
  allDay: boolean;
  start: ExternalTime;
  end: ExternalTime;
  /** IANA zone of the event when known. */
  timezone: string | null;
  /** RFC 5545 lines of a series master; null when not recurring. */
  recurrence: string[] | null;
  /** Reminders as the provider resolves them; null when it does not say. */
  reminders: Reminder[] | null;
  /** Whether the time shows as busy (A `transparency`, B `showAs`); absent: opaque. */
  transparency?: Transparency;
}

/** What the service writes to a provider. Times are instants; `timezone` is IANA. */
export interface EventWrite {
  title: string;
  description: string | null;
  location: string | null;
  allDay: boolean;
  startTime: string;
  endTime: string;
  timezone: string;
  recurrence: string[] | null;
  /** Absent: the provider's reminders are left alone. */
  reminders?: Reminder[];
  /** Absent: the provider's free/busy flag is left alone. */
  transparency?: Transparency;
}

export interface ChangePage {
  events: ExternalEvent[];
  /** The calendar's zone, when the listing says (A). */
  timezone: string | null;
}

export interface ListChangesInput {
  calendarId: string;
  /** Null: a full listing, which ends with a fresh cursor. */
  syncToken: string | null;
  /** B: the calendarView window of a full listing. */
  window?: { start: string; end: string };
  /** Called once per page, in order; the listing waits for it (backpressure). */
  onPage(page: ChangePage): Promise<void>;
}

export interface Channel {
  channelId: string;
  resourceId: string | null;
  expiresAt: string;
}

export interface WatchInput {
  calendarId: string;
  channelId: string;
  /** The public webhook URL. */
  address: string;
  /** Echoed by the provider in every notification (A: channel token, B: clientState). */
  secret: string;
  ttlSeconds: number;
}

/**
 * The port to an external calendar provider. One adapter per provider speaks its real wire
 * format; base URLs and client credentials come from configuration.
 */
export interface CalendarProviderPort {
  readonly id: SyncProvider;
  /** The window a full listing covers, for providers that list a calendar view (B). */
  readonly windowed: boolean;
  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string;
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<TokenSet>;
  /** Throws GrantRevokedError when the provider refuses the refresh token. */
  refresh(refreshToken: string): Promise<TokenSet>;
  /** Revokes the grant, where the provider offers it; absent otherwise. */
  revoke?(token: string): Promise<void>;
  listCalendars(accessToken: string): Promise<ExternalCalendar[]>;
  /** Throws SyncTokenExpiredError when the cursor is no longer valid (HTTP 410). Answers the next cursor. */
  listChanges(accessToken: string, input: ListChangesInput): Promise<string>;
  getEvent(accessToken: string, calendarId: string, externalId: string): Promise<ExternalEvent | null>;
  /** Whether the provider can hold this local event (B: a series only when its rule converts); absent: any. */
  canHold?(event: EventWrite): boolean;
  createEvent(accessToken: string, calendarId: string, event: EventWrite): Promise<ExternalEvent>;
  /** Throws PreconditionFailedError when `etag` is no longer current; NotFoundAtProviderError when gone. */
  updateEvent(
    accessToken: string,
    calendarId: string,
    externalId: string,
    event: EventWrite,
    etag: string | null,
  ): Promise<ExternalEvent>;
  deleteEvent(
    accessToken: string,
    calendarId: string,
    externalId: string,
    etag: string | null,
  ): Promise<void>;
  watch(accessToken: string, input: WatchInput): Promise<Channel>;
  /** Extends a channel in place when the provider can (B); null when a new one is needed (A). */
  renewWatch(accessToken: string, channel: Channel, ttlSeconds: number): Promise<Channel | null>;
  stopWatch(accessToken: string, channel: { channelId: string; resourceId: string | null }): Promise<void>;
  /** Longest channel lifetime the provider grants. */
  readonly maxChannelTtlSeconds: number;
  /** Whether the provider takes the channel id we choose (A) rather than assigning one (B). */
  readonly clientChannelIds: boolean;
}

/**
 * A provider failure as the API answers it: 502 PROVIDER_ERROR or 504 PROVIDER_TIMEOUT. The
 * message is fixed; the provider's own answer (never a token) travels in `cause` to the log.
 */
export class CalendarProviderError extends DomainError {
  constructor(
    kind: 'error' | 'timeout',
    detail: string,
    /** HTTP status the provider answered, when it answered. */
    readonly status?: number,
  ) {
    super(
      kind === 'timeout' ? 'PROVIDER_TIMEOUT' : 'PROVIDER_ERROR',
      kind === 'timeout'
        ? 'The calendar provider did not answer in time; try again'
        : 'The calendar provider could not complete the request; try again later',
    );
    this.cause = new Error(`calendar provider: ${detail}`);
  }

  /** A short, token-free description for status `lastError`. */
  get detail(): string {
    return this.cause instanceof Error ? this.cause.message : this.message;
  }
}

/** The provider refused our refresh token (invalid_grant): the user must connect again. */
export class GrantRevokedError extends CalendarProviderError {}
/** The access token was refused (401). */
export class UnauthorizedError extends CalendarProviderError {}
/** The sync cursor expired (410): a full resync is needed. */
export class SyncTokenExpiredError extends CalendarProviderError {}
/** If-Match did not hold (412): someone changed the event at the provider. */
export class PreconditionFailedError extends CalendarProviderError {}
/** The event (or channel) is gone at the provider (404, 410 on an item). */
export class NotFoundAtProviderError extends CalendarProviderError {}
