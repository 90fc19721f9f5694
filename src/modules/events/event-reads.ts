import type { Actor } from '../../lib/actor.js';
import type { EventContext } from './context.js';
import { invalid, toMillis } from './event-rules.js';
import {
  compileRecurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
} from './recurrence.js';
import type { Event, EventOccurrence, EventRange } from './schemas.js';

/** Longest range one event listing may cover. */
export const MAX_RANGE_DAYS = 366;
/** Most occurrences one event listing answers; a denser range must be asked for in parts. */
export const MAX_OCCURRENCES = 10_000;

/**
 * A stored rule that no longer compiles (written before a rule was tightened, or
 * behind the API's back) shows the event once, as its first occurrence, rather
 * than failing the whole calendar.
 */
function storedRecurrence(
  event: Parameters<typeof compileRecurrence>[1] & { recurrence: Parameters<typeof compileRecurrence>[0] },
) {
  try {
    return compileRecurrence(event.recurrence, event);
  } catch (error) {
    if (error instanceof RecurrenceError) return null;
    throw error;
  }
}

export async function listOccurrences(
  { repo, calendars }: EventContext,
  actor: Actor,
  calendarId: number,
  range: EventRange,
): Promise<EventOccurrence[]> {
  await calendars.requireReadable(actor, calendarId);
  const from = toMillis(range.from, 'from');
  const to = toMillis(range.to, 'to');
  if (to <= from) throw invalid('to', 'must be after from');
  if (to - from > MAX_RANGE_DAYS * 86_400_000)
    throw invalid('to', `the range may cover at most ${MAX_RANGE_DAYS} days`);

  const events = await repo.listOverlapping(
    calendarId,
    new Date(from).toISOString(),
    new Date(to).toISOString(),
  );
  const occurrences: EventOccurrence[] = [];
  try {
    for (const event of events) {
      const compiled = storedRecurrence(event);
      const found = occurrencesBetween(event, compiled, from, to, MAX_OCCURRENCES - occurrences.length);
      const { id, recurrence: _recurrence, createdAt: _c, updatedAt: _u, ...shared } = event;
      for (const { start, end } of found) {
        occurrences.push({
          ...shared,
          eventId: id,
          startTime: start,
          endTime: end,
          isRecurring: !!compiled,
        });
      }
    }
  } catch (error) {
    if (error instanceof OccurrenceLimitError)
      throw invalid('to', `the range holds more than ${MAX_OCCURRENCES} occurrences; ask for a shorter one`);
    throw error;
  }
  return occurrences.sort((a, b) =>
    a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : a.eventId - b.eventId,
  );
}

export async function findByExternalId(
  { repo, calendars }: EventContext,
  actor: Actor,
  calendarId: number,
  provider: string,
  externalId: string,
): Promise<Event | undefined> {
  await calendars.requireOwned(actor, calendarId);
  return repo.findByExternalId(calendarId, provider, externalId);
}
