import type { Executor } from '../../db/database.js';
import { type BusyRepo, createBusyRepo } from './busy-repo.js';
import { type CatalogueRepo, createCatalogueRepo } from './catalogue-repo.js';

export { type BookingRead, createBookingReads } from './booking-reads-repo.js';
export { managerBusy } from './busy-repo.js';
export type { CatalogueRow } from './catalogue-repo.js';
export { createExplainReads } from './explain-repo.js';
export { createVersionReads } from './versions-repo.js';

/**
 * What availability's answers read: the catalogue (catalogue-repo.ts) and what is taken on
 * its lanes (busy-repo.ts). A booking's own read is booking-reads-repo.ts, the versions the
 * answer cache is labelled with versions-repo.ts.
 */
export interface AvailabilityRepo extends CatalogueRepo, BusyRepo {}

export function createAvailabilityRepo(db: Executor): AvailabilityRepo {
  return { ...createCatalogueRepo(db), ...createBusyRepo(db) };
}
