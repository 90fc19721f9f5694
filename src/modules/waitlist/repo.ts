import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { createConsumerRepo } from './consumer-repo.js';
import { createEntriesRepo } from './entries-repo.js';
import { createOffersRepo } from './offers-repo.js';
import type { WaitlistEntriesTable } from './tables.js';

export { shownStatus, toEntry } from './views.js';

export type EntryRow = Selectable<WaitlistEntriesTable>;

/** The waitlist module's queries of its own tables. */
export function createWaitlistRepo(db: Executor) {
  return { ...createEntriesRepo(db), ...createOffersRepo(db), ...createConsumerRepo(db) };
}
