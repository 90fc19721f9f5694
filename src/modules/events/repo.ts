import type { Executor } from '../../db/database.js';
import { createMirrorsRepo, type MirrorsRepo } from './mirrors-repo.js';
import { createEventRecordsRepo, type EventRecordsRepo } from './records-repo.js';
import { createWindowReadsRepo, type WindowReadsRepo } from './window-reads-repo.js';

export { toEvent } from './event-row.js';
export { createSyncedEventRepo, type SyncedEventRepo } from './synced-events-repo.js';

/**
 * The events module's queries of its own table, one concern repo each: an event's own row,
 * reads by a span of time, the mirrors of reservations. Calendar sync's bulk writes are
 * `createSyncedEventRepo`'s.
 */
export interface EventRepo extends EventRecordsRepo, WindowReadsRepo, MirrorsRepo {}

export function createEventRepo(db: Executor): EventRepo {
  return { ...createEventRecordsRepo(db), ...createWindowReadsRepo(db), ...createMirrorsRepo(db) };
}
