import { type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
  unlinked,
} from '../../privacy/declaration.js';
import { memberOrganisationIds } from '../organisations/ports.js';

/** What an anonymised reservation keeps as its customer. */
export const ANONYMISED_CUSTOMER_NAME = 'Anonymised';

const made = (db: Executor, { userId }: DataSubject) =>
  db
    .selectFrom('reservations')
    .where('reservations.createdByUserId', '=', userId)
    // A collective reservation's parts are not reservations of their own (migration 0067).
    .where('reservations.partOf', 'is', null);

/** Whether the booking's customer is the person themselves (same email or name). */
const ownBooking = ({ email, name }: DataSubject) =>
  // lower() on both sides: SQLite's lower() folds ASCII only, and must agree with itself.
  sql<SqlBool>`(lower(${sql.ref('customerEmail')}) = lower(${email}) or lower(${sql.ref('customerName')}) = lower(${name}))`;

/**
 * A booking's customer fields as the export shows them: while the person belongs to its
 * organisation (they read them there anyway), or when the customer is themselves. A member
 * who left takes no customer of the organisation along (DECISIONS.md "Membership ends access").
 */
const customerField = <C extends string>(db: Executor, subject: DataSubject, column: C) =>
  sql<string | null>`case when ${ownBooking(subject)}
      or ${sql.ref('reservations.organisationId')} in ${memberOrganisationIds(db, subject.userId)}
    then ${sql.ref(column)} else null end`.as(column);

/**
 * Reservations the person made while signed in. They are the organisations' accounting
 * records, so erasure keeps them (times, resource, status, price) and takes the person
 * out: the creator link always, and the customer fields (name, email, phone, answers,
 * notes) when the customer is the person themselves (same email or name). A booking
 * made for someone else keeps that customer's details: they are the organisation's
 * record of its customer. Bookings made without an account (public routes) are not
 * linked to anyone: account emails are not verified, so matching them by email would
 * let anyone read or erase another person's bookings.
 */
export const reservationsPrivacy: PrivacyDeclaration = {
  module: 'reservations',
  tables: {
    reservations: personal(
      'bookings',
      'kept for the organisation’s accounting, without the creator link (or the link to you as the staff member who overrode its booking rules) and, for your own bookings, without name, email, phone, answers or notes',
    ),
    reservation_series: unlinked(
      'bookings',
      'kept with its occurrences, without the link to you as the member who booked it',
    ),
    reservation_reminders: noPersonalData(
      'which reminder mails went out: a reservation id, the minutes before and the start they were for',
    ),
    reservation_lane_days: noPersonalData(
      'counts of bookings per resource, type and day for round robin: numbers and ids, no person',
    ),
  },
  categories: [
    {
      id: 'bookings',
      label: 'Reservations you made',
      purpose: 'Holding the booked time for you and letting the organisation account for it',
      retention:
        'As long as the organisation keeps its bookings; on erasure they stay anonymised for its accounting',
    },
  ],
  async holdings(db, subject) {
    return {
      reservations: await countOf(made(db, subject)),
      reservation_series: await countOf(
        db.selectFrom('reservationSeries').where('reservationSeries.createdByUserId', '=', subject.userId),
      ),
    };
  },
  exports: [
    exportSection({
      name: 'reservations',
      table: 'reservations',
      key: ['reservations.id'],
      rows: (db, s) =>
        made(db, s).select([
          'reservations.id',
          'organisationId',
          'resourceTypeId',
          'resourceId',
          'status',
          'startTime',
          'endTime',
          customerField(db, s, 'customerName'),
          customerField(db, s, 'customerEmail'),
          customerField(db, s, 'customerPhone'),
          customerField(db, s, 'customerInfo'),
          customerField(db, s, 'notes'),
          customerField(db, s, 'attendance'),
          'priceAmount',
          'priceCurrency',
          'source',
          'assignmentStrategy',
          'assignmentReason',
          'resourceIds',
          'cancelledAt',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, customerInfo: json(row.customerInfo), resourceIds: json(row.resourceIds) }),
    }),
  ],
  async erase(trx, subject, now) {
    const { userId } = subject;
    const anonymised = await trx
      .updateTable('reservations')
      .set({
        customerName: ANONYMISED_CUSTOMER_NAME,
        customerEmail: '',
        customerPhone: null,
        customerInfo: '{}',
        notes: null,
        createdByUserId: null,
        updatedAt: now,
      })
      .where('createdByUserId', '=', userId)
      .where(ownBooking(subject))
      .executeTakeFirst();
    const unlinked = await trx
      .updateTable('reservations')
      .set({ createdByUserId: null, updatedAt: now })
      .where('createdByUserId', '=', userId)
      .executeTakeFirst();
    // The staff member who overrode a booking's rules is unlinked, as its creator is.
    const overrides = await trx
      .updateTable('reservations')
      .set({ rulesOverriddenByUserId: null, updatedAt: now })
      .where('rulesOverriddenByUserId', '=', userId)
      .executeTakeFirst();
    const series = await trx
      .updateTable('reservationSeries')
      .set({ createdByUserId: null })
      .where('createdByUserId', '=', userId)
      .executeTakeFirst();
    return {
      reservations: changed(anonymised) + changed(unlinked) + changed(overrides),
      reservation_series: changed(series),
    };
  },
};
