import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const ownMappings = (db: Executor, { userId }: DataSubject) =>
  db
    .selectFrom('calendarSyncMappings')
    .select('calendarSyncMappings.id')
    .where('calendarSyncMappings.userId', '=', userId);

const held = (db: Executor, subject: DataSubject) => ({
  connections: db
    .selectFrom('calendarSyncConnections')
    .where('calendarSyncConnections.userId', '=', subject.userId),
  mappings: db.selectFrom('calendarSyncMappings').where('calendarSyncMappings.userId', '=', subject.userId),
  states: db.selectFrom('calendarSyncStates').where('calendarSyncStates.userId', '=', subject.userId),
  exceptions: db
    .selectFrom('calendarSyncExceptions')
    .where('calendarSyncExceptions.mappingId', 'in', ownMappings(db, subject)),
  conflicts: db
    .selectFrom('calendarSyncConflicts')
    .where('calendarSyncConflicts.userId', '=', subject.userId),
});

/**
 * External calendar connections and mappings. Exports never carry the sealed provider
 * tokens, PKCE verifiers, state or channel hashes, sync cursors or leases. Erasure
 * deletes every row: our copies of the provider tokens are gone, so nothing syncs again
 * (push channels still open at a provider lapse on their own; their notifications find
 * no mapping and are answered 404).
 */
export const calendarSyncPrivacy: PrivacyDeclaration = {
  module: 'calendar-sync',
  tables: {
    calendar_sync_connections: personal('calendar_sync', 'deleted (with our copies of the provider tokens)'),
    calendar_sync_mappings: personal('calendar_sync', 'deleted'),
    calendar_sync_states: personal('calendar_sync', 'deleted'),
    calendar_sync_exceptions: personal('calendar_sync', 'deleted'),
    calendar_sync_conflicts: personal('calendar_sync', 'deleted'),
  },
  categories: [
    {
      id: 'calendar_sync',
      label:
        'External calendar connections (provider tokens, encrypted), calendar mappings, recurring-event exceptions and sync conflicts',
      purpose: 'Keeping your external calendars and the service’s calendars in step',
      retention: 'Until you disconnect the provider (connections) or your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      calendar_sync_connections: await countOf(q.connections),
      calendar_sync_mappings: await countOf(q.mappings),
      calendar_sync_states: await countOf(q.states),
      calendar_sync_exceptions: await countOf(q.exceptions),
      calendar_sync_conflicts: await countOf(q.conflicts),
    };
  },
  exports: [
    exportSection({
      name: 'calendarSyncConnections',
      table: 'calendar_sync_connections',
      key: ['calendarSyncConnections.id'],
      rows: (db, s) =>
        held(db, s).connections.select([
          'calendarSyncConnections.id',
          'provider',
          'state',
          'scope',
          'externalCalendars',
          'lastErrorCode',
          'lastErrorMessage',
          'lastErrorAt',
          'connectedAt',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, externalCalendars: json(row.externalCalendars) }),
    }),
    exportSection({
      name: 'calendarSyncMappings',
      table: 'calendar_sync_mappings',
      key: ['calendarSyncMappings.id'],
      rows: (db, s) =>
        held(db, s).mappings.select([
          'calendarSyncMappings.id',
          'provider',
          'externalCalendarId',
          'localCalendarId',
          'localName',
          'bidirectionalSync',
          'importReminders',
          'triggerAutomationRules',
          'selectedRuleIds',
          'state',
          'lastSyncedAt',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({
        ...row,
        bidirectionalSync: bool(row.bidirectionalSync),
        importReminders: bool(row.importReminders),
        triggerAutomationRules: bool(row.triggerAutomationRules),
        selectedRuleIds: json(row.selectedRuleIds),
      }),
    }),
    exportSection({
      name: 'calendarSyncConnectAttempts',
      table: 'calendar_sync_states',
      key: ['calendarSyncStates.id'],
      rows: (db, s) =>
        held(db, s).states.select(['calendarSyncStates.id', 'provider', 'expiresAt', 'usedAt', 'createdAt']),
    }),
    exportSection({
      name: 'calendarSyncExceptions',
      table: 'calendar_sync_exceptions',
      key: ['calendarSyncExceptions.id'],
      rows: (db, s) =>
        held(db, s).exceptions.select([
          'calendarSyncExceptions.id',
          'mappingId',
          'seriesExternalId',
          'instanceExternalId',
          'exdate',
          'createdAt',
        ]),
    }),
    exportSection({
      name: 'calendarSyncConflicts',
      table: 'calendar_sync_conflicts',
      key: ['calendarSyncConflicts.id'],
      rows: (db, s) =>
        held(db, s).conflicts.select([
          'calendarSyncConflicts.id',
          'mappingId',
          'eventId',
          'externalId',
          'localChange',
          'resolution',
          'createdAt',
        ]),
    }),
  ],
  async erase(trx, subject) {
    const { userId } = subject;
    const conflicts = await trx
      .deleteFrom('calendarSyncConflicts')
      .where('userId', '=', userId)
      .executeTakeFirst();
    const exceptions = await trx
      .deleteFrom('calendarSyncExceptions')
      .where('mappingId', 'in', ownMappings(trx, subject))
      .executeTakeFirst();
    const mappings = await trx
      .deleteFrom('calendarSyncMappings')
      .where('userId', '=', userId)
      .executeTakeFirst();
    const states = await trx.deleteFrom('calendarSyncStates').where('userId', '=', userId).executeTakeFirst();
    const connections = await trx
      .deleteFrom('calendarSyncConnections')
      .where('userId', '=', userId)
      .executeTakeFirst();
    return {
      calendar_sync_conflicts: changed(conflicts),
      calendar_sync_exceptions: changed(exceptions),
      calendar_sync_mappings: changed(mappings),
      calendar_sync_states: changed(states),
      calendar_sync_connections: changed(connections),
    };
  },
};
