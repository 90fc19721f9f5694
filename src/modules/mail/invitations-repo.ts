import { sql } from 'kysely';
import { compiledPerCount, type Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';
import { GROUP_ROWS } from './messages-repo.js';

/** The calendar invitations booking mails carry: each reservation's iCalendar sequence. */
export function createInvitationsRepo(db: Executor) {
  const insertInvitations = compiledPerCount((count) =>
    db
      .insertInto('mailCalendarInvitations')
      .values(
        Array.from({ length: count }, () => ({
          reservationId: 0,
          sequence: sql.lit(0),
          lastRescheduleEventId: sql.lit(null),
          updatedAt: '',
        })),
      )
      .onConflict((oc) => oc.column('reservationId').doNothing())
      .returning(['reservationId', 'sequence']),
  );

  async function invitationSequence(reservationId: number): Promise<number | null> {
    const row = await db
      .selectFrom('mailCalendarInvitations')
      .select('sequence')
      .where('reservationId', '=', reservationId)
      .executeTakeFirst();
    return row?.sequence ?? null;
  }

  return {
    invitationSequence,

    /**
     * Records that an invitation goes out for each reservation (SEQUENCE 0), once, and answers
     * the SEQUENCE each carries: the first invitations in one statement; a later one reads
     * what reschedules made it.
     */
    async recordInvitations(reservationIds: readonly number[], now: string): Promise<Map<number, number>> {
      const ids = [...new Set(reservationIds)];
      const sequences = new Map<number, number>();
      for (const group of chunks(ids, GROUP_ROWS)) {
        const { rows } = await insertInvitations(
          db,
          group.length,
          group.flatMap((reservationId) => [reservationId, now]),
        );
        for (const row of rows) sequences.set(row.reservationId, row.sequence);
      }
      const known = ids.filter((id) => !sequences.has(id));
      if (known.length > 0) {
        const rows = await db
          .selectFrom('mailCalendarInvitations')
          .select(['reservationId', 'sequence'])
          .where('reservationId', 'in', known)
          .execute();
        for (const row of rows) sequences.set(row.reservationId, row.sequence);
      }
      return sequences;
    },

    /**
     * Counts a reschedule event into the reservation's SEQUENCE once (the same event
     * again changes nothing) and answers the SEQUENCE its mail carries.
     */
    async countReschedule(reservationId: number, eventId: string, now: string): Promise<number> {
      await db
        .insertInto('mailCalendarInvitations')
        .values({ reservationId, sequence: 1, lastRescheduleEventId: eventId, updatedAt: now })
        .onConflict((oc) =>
          oc
            .column('reservationId')
            .doUpdateSet((eb) => ({
              sequence: eb('mailCalendarInvitations.sequence', '+', 1),
              lastRescheduleEventId: eventId,
              updatedAt: now,
            }))
            .where((eb) =>
              eb.or([
                eb('mailCalendarInvitations.lastRescheduleEventId', 'is', null),
                eb('mailCalendarInvitations.lastRescheduleEventId', '!=', eventId),
              ]),
            ),
        )
        .execute();
      return (await invitationSequence(reservationId)) ?? 1;
    },
  };
}
