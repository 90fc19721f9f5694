/**
 * A fixed week for tests that set the clock (Date only) at T0: Monday 6 January 2031,
 * UTC, so booking rules, notices and alternatives read the same every run.
 */
export const MINUTE = 60_000;
/** Monday 6 January 2031, 08:00:20 UTC: the clock of these tests. */
export const T0 = Date.parse('2031-01-06T08:00:20.000Z');
/** Monday 6 January 2031, 00:00 UTC. */
export const MONDAY = Date.parse('2031-01-06T00:00:00.000Z');
/** An instant `day` days after that Monday at hour:minute UTC. */
export const at = (day: number, hour: number, minute = 0) =>
  new Date(MONDAY + ((day * 24 + hour) * 60 + minute) * MINUTE).toISOString();
/** `hours` hours from `day` at `hour`, as a booking body's times. */
export const slot = (day: number, hour: number, hours = 1) => ({
  startTime: at(day, hour),
  endTime: at(day, hour + hours),
});
