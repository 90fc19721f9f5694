import { invalidField } from '../../lib/errors.js';

/** Longest reservation accepted. */
const MAX_RESERVATION_MS = 31 * 86_400_000;

/**
 * The time a booking or a move asks for, as epoch milliseconds, each field refused by
 * name: it ends after it starts, lasts at most 31 days and starts in the future.
 */
export function requestedTimes(input: { startTime: string; endTime: string }) {
  const start = Date.parse(input.startTime);
  const end = Date.parse(input.endTime);
  if (end <= start) throw invalidField('endTime', 'must be after startTime');
  if (end - start > MAX_RESERVATION_MS) throw invalidField('endTime', 'a reservation lasts at most 31 days');
  if (start <= Date.now()) throw invalidField('startTime', 'must be in the future');
  return { start, end };
}
