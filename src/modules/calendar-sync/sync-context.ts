import type { ProviderRegistry } from './providers/index.js';
import { CalendarProviderError, type CalendarProviderPort, type SyncProvider } from './providers/port.js';
import type { ConnectionRow, Mapping } from './repo.js';

export interface SyncLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

export interface SyncCounts {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
  skipped: number;
}

export interface SyncResult extends SyncCounts {
  full: boolean;
  /** Local events the sync created or whose content it changed (automation runs on these). */
  changed: number[];
}

/** The counts a pull, or one page of it, starts from. */
export const noChanges = (full: boolean): SyncResult => ({
  full,
  inserted: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  skipped: 0,
  changed: [],
});

/** One mapped calendar ready for sync work: its mapping, connection, provider and zone. */
export interface SyncContext {
  mapping: Mapping;
  connection: ConnectionRow;
  port: CalendarProviderPort;
  calendarTz: string;
}

/** The job that pushes one local change to the provider. */
export interface PushJob {
  mappingId: number;
  type: 'created' | 'updated' | 'deleted';
  eventId: number;
  /** For a delete: the provider id and etag the event had. */
  externalId?: string | null;
  etag?: string | null;
}

/** The provider's adapter; a provider left unconfigured answers PROVIDER_ERROR. */
export function portOf(providers: ProviderRegistry, provider: SyncProvider): CalendarProviderPort {
  const port = providers[provider];
  if (!port)
    throw new CalendarProviderError('error', `${provider} is not configured (CALENDAR_PROVIDER_* settings)`);
  return port;
}
