import type { ReservationsContext } from './context.js';

/** The job that mails each reservation's reminders (resource type `reminders`) as they come due. */
export const RESERVATION_REMINDERS_JOB = 'reservations_send_reminders';
/** How often it runs (minutes): a reminder goes within about this much of its moment. */
export const REMINDERS_EVERY_MINUTES = 1;

const MINUTE = 60_000;
/**
 * How late a reminder still goes (after an outage, or for a booking moved just past its
 * moment); an older one is let go. It never goes once the reservation has started.
 */
const REMINDER_LATENESS_MS = 60 * MINUTE;
/** Reservations one statement sends for at most. */
const SEND_BATCH = 500;

/** One reminder sent: the reservation and which of its type's reminders. */
export interface SentReminder {
  reservationId: number;
  minutesBefore: number;
}

/**
 * The reminder job's run (the service's `sendDueReminders`). A reminder of `minutesBefore`
 * is due from `startTime - minutesBefore` while the reservation is confirmed and not
 * started, for the start it has now (a moved reservation is reminded of its new time,
 * whatever went for the old). One that fell before the booking was made is not sent: the
 * confirmation just told the customer. Sending is one insert whose key is (reservation,
 * minutesBefore, start): several instances sweeping at once send each reminder once.
 */
export function createReminders({ repo }: Pick<ReservationsContext, 'repo'>): () => Promise<SentReminder[]> {
  return async function sendDueReminders() {
    const now = Date.now();
    const byMinutes = new Map<number, number[]>();
    for (const type of await repo.reminderTypes())
      for (const minutes of type.minutesBefore)
        byMinutes.set(minutes, [...(byMinutes.get(minutes) ?? []), type.id]);
    const sent: SentReminder[] = [];
    for (const [minutesBefore, typeIds] of byMinutes) {
      const lead = minutesBefore * MINUTE;
      const window = {
        minutesBefore,
        typeIds,
        after: new Date(Math.max(now, now + lead - REMINDER_LATENESS_MS)).toISOString(),
        until: new Date(now + lead).toISOString(),
      };
      const due = (await repo.candidates(window))
        .filter((r) => Date.parse(r.startTime) - lead >= Date.parse(r.createdAt))
        .map((r) => r.id);
      for (let i = 0; i < due.length; i += SEND_BATCH) {
        const ids = await repo.send(window, due.slice(i, i + SEND_BATCH), new Date(now).toISOString());
        sent.push(...ids.map((reservationId) => ({ reservationId, minutesBefore })));
      }
    }
    return sent;
  };
}
