import type { Executor } from '../../db/database.js';
import { type ConflictsRepo, createConflictsRepo } from './conflicts-repo.js';
import { type ConnectionsRepo, createConnectionsRepo } from './connections-repo.js';
import { createMappingsRepo, type MappingsRepo } from './mappings-repo.js';
import { createSeriesExceptionsRepo, type SeriesExceptionsRepo } from './series-exceptions-repo.js';
import { createSyncStateRepo, type SyncStateRepo } from './sync-state-repo.js';

export type { ConnectionRow, SealedTokens } from './connections-repo.js';
export { type Mapping, type MappingRow, type MappingSettings, toMapping } from './mappings-repo.js';

/** Every calendar-sync table in one object: the sync's steps share it (and a transaction's copy). */
export interface SyncRepo
  extends ConnectionsRepo,
    MappingsRepo,
    SyncStateRepo,
    SeriesExceptionsRepo,
    ConflictsRepo {}

export function createSyncRepo(db: Executor): SyncRepo {
  return {
    ...createConnectionsRepo(db),
    ...createMappingsRepo(db),
    ...createSyncStateRepo(db),
    ...createSeriesExceptionsRepo(db),
    ...createConflictsRepo(db),
  };
}
