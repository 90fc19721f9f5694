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
import { ownedCalendarIds } from '../calendars/ports.js';

/** The person's calendars, as the subquery every event query filters by. */
const ownCalendars = (db: Executor, { userId }: DataSubject) => ownedCalendarIds(db, userId);

const held = (db: Executor, subject: DataSubject) =>
  db.selectFrom('events').where('events.calendarId', 'in', ownCalendars(db, subject));

/** Events of the person's own calendars (events of calendars shared with them are their owners'). */
export const eventsPrivacy: PrivacyDeclaration = {
  module: 'events',
  tables: {
    events: personal('events', 'deleted'),
  },
  categories: [
    {
      id: 'events',
      label: 'Events in your calendars: titles, descriptions, places, times, recurrence, reminders',
      purpose: 'Showing and reminding you of your events; syncing them with external calendars you connect',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    return { events: await countOf(held(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'events',
      table: 'events',
      // One calendar at a time, by (start, id): the order of events_calendar_start_idx
      // (whose entries end with the id on SQLite), so each batch is one index range.
      partition: { column: 'events.calendarId', values: ownCalendars },
      key: ['events.startTime', 'events.id'],
      rows: (db) =>
        db
          .selectFrom('events')
          .select([
            'events.id',
            'calendarId',
            'title',
            'description',
            'location',
            'startTime',
            'endTime',
            'allDay',
            'timezone',
            'recurrence',
            'reminders',
            'externalProvider',
            'externalId',
            'externalLastSyncedAt',
            'createdAt',
            'updatedAt',
          ]),
      record: (row) => ({
        ...row,
        allDay: bool(row.allDay),
        recurrence: json(row.recurrence) ?? [],
        reminders: json(row.reminders),
      }),
    }),
  ],
  async erase(trx, subject) {
    const result = await trx
      .deleteFrom('events')
      .where('calendarId', 'in', ownCalendars(trx, subject))
      .executeTakeFirst();
    return { events: changed(result) };
  },
};
