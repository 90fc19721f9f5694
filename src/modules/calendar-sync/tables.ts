import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

/** One user's authorisation of one external calendar provider. Deleted on disconnect. */
export interface CalendarSyncConnectionsTable {
  id: Id;
  userId: number;
  /** `calendar_provider_a` or `calendar_provider_b`. */
  provider: string;
  /** `connected`, or `needs_reconnect` once the provider refused our refresh token. */
  state: string;
  /** AES-256-GCM sealed (ENCRYPTION_KEY), bound to user and provider; never plaintext. */
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  accessTokenExpiresAt: Timestamp | null;
  scope: string | null;
  /** JSON array of `{externalId, name, primary, timezone}`: the provider's calendar list, last read. */
  externalCalendars: JsonText;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  lastErrorAt: Timestamp | null;
  connectedAt: Timestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** An external calendar mapped onto a local calendar. */
export interface CalendarSyncMappingsTable {
  id: Id;
  userId: number;
  provider: string;
  externalCalendarId: string;
  localCalendarId: number;
  localName: string;
  bidirectionalSync: Bool;
  importReminders: Bool;
  triggerAutomationRules: Bool;
  /** JSON array of rule ids, or null for every enabled `event.synced` rule. */
  selectedRuleIds: JsonText | null;
  /** `active`, or `unlinked` after a disconnect (local calendar and events kept, no longer synced). */
  state: string;
  /** Provider cursor: A's nextSyncToken, B's @odata.deltaLink. Null: the next sync is a full one. */
  syncToken: string | null;
  /** B only: end of the calendarView window the delta link covers. */
  syncWindowEnd: Timestamp | null;
  lastSyncedAt: Timestamp | null;
  /** When the periodic poller last queued a sync (its claim, so N instances queue it once). */
  lastPolledAt: Timestamp | null;
  /** Push channel: A's channel id / B's subscription id. */
  channelId: string | null;
  /** A only: the watched resource id, needed to stop the channel. */
  channelResourceId: string | null;
  /** SHA-256 of the channel token (A) or clientState (B) the provider echoes in notifications. */
  channelTokenHash: string | null;
  channelExpiresAt: Timestamp | null;
  /** Cross-instance lease: one sync or push-back of this calendar at a time. */
  leaseOwner: string | null;
  leaseUntil: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** Short-lived OAuth `state` of a connect attempt: single use, bound to user and provider, with PKCE. */
export interface CalendarSyncStatesTable {
  id: Id;
  stateHash: string;
  userId: number;
  provider: string;
  /** The PKCE code_verifier, sealed like tokens. */
  codeVerifierEnc: string;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
  createdAt: Timestamp;
}

/**
 * Exceptions of a recurring external series (A): a cancelled or moved occurrence. The local
 * series carries one EXDATE per row, so the series keeps them across later changes of its rule.
 */
export interface CalendarSyncExceptionsTable {
  id: Id;
  mappingId: number;
  seriesExternalId: string;
  instanceExternalId: string;
  /** RFC 5545 value of the excluded start: `YYYYMMDDTHHMMSSZ` or `YYYYMMDD` (all-day). */
  exdate: string;
  createdAt: Timestamp;
}

/** A push-back the provider refused with 412: the provider's version was kept ("provider wins"). */
export interface CalendarSyncConflictsTable {
  id: Id;
  userId: number;
  mappingId: number | null;
  eventId: number | null;
  externalId: string;
  /** What the local change was: `update` or `delete`. */
  localChange: string;
  /** Always `provider_wins` today. */
  resolution: string;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface CalendarSyncTables {
  calendarSyncConnections: CalendarSyncConnectionsTable;
  calendarSyncMappings: CalendarSyncMappingsTable;
  calendarSyncStates: CalendarSyncStatesTable;
  calendarSyncExceptions: CalendarSyncExceptionsTable;
  calendarSyncConflicts: CalendarSyncConflictsTable;
}
