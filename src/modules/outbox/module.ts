import { defineModule } from '../../module.js';
import { outbox } from './migrations/0023_outbox.js';
import { outboxRetentionById } from './migrations/0034_outbox_retention_by_id.js';
import { outboxFeedIndexesPartial } from './migrations/0039_outbox_feed_indexes_partial.js';
import { outboxReservationNullsLeftOut } from './migrations/0040_outbox_reservation_nulls_left_out.js';
import { outboxSequenceFunction } from './migrations/0062_outbox_sequence_function.js';
import { outboxSequenceHashJoin } from './migrations/0078_outbox_sequence_hash_join.js';
import { outboxPrivacy } from './privacy.js';
import type { OutboxEventsTable } from './repo.js';
import { organisationFeedRoutes, personalFeedRoutes } from './routes.js';
import { createOutboxService, OUTBOX_RETENTION_JOB, type OutboxService } from './service.js';

declare module '../../module.js' {
  interface Services {
    outbox: OutboxService;
  }
}

declare module '../../db/types.js' {
  interface Database {
    outboxEvents: OutboxEventsTable;
  }
}

export const outboxModule = defineModule({
  name: 'outbox',
  tables: ['outboxEvents'],
  service: (deps, services) =>
    createOutboxService({
      ...deps,
      organisations: services.organisations,
      // Read when an event is read, not now: the reservations service may be built after this one.
      records: { reservation_row: (row, at) => services.reservations.recordOfEvent(row, at) },
    }),
  routes: [
    { prefix: '/api/organisations', plugin: organisationFeedRoutes },
    { prefix: '/api/me', plugin: personalFeedRoutes },
  ],
  privacy: outboxPrivacy,
  migrations: {
    '0023_outbox': outbox,
    '0034_outbox_retention_by_id': outboxRetentionById,
    '0039_outbox_feed_indexes_partial': outboxFeedIndexesPartial,
    '0040_outbox_reservation_nulls_left_out': outboxReservationNullsLeftOut,
    '0062_outbox_sequence_function': outboxSequenceFunction,
    '0078_outbox_sequence_hash_join': outboxSequenceHashJoin,
  },
  jobs: ({ prune }) => [
    {
      name: OUTBOX_RETENTION_JOB,
      handler: async () => void (await prune()),
      options: { retryLimit: 2, deduplicate: true },
      everyMinutes: 60,
    },
  ],
});
