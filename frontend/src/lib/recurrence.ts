// The booking page's series logic, kept free of React and the DOM so test/frontend can check it:
// the weekly rule a customer picks, the occurrences that did not fit as the API names them, and
// what a series costs in all.

/** The number of weeks a customer may pick for a weekly series (this week counted). */
export const MIN_WEEKS = 2;
export const MAX_WEEKS = 52;

/** The RFC 5545 lines of "every week, `weeks` times" (the first time is the booking's own). */
export function weeklyRecurrence(weeks: number): string[] {
  return [`RRULE:FREQ=WEEKLY;COUNT=${weeks}`];
}

/** The number of weeks typed, or null when it is no whole number from MIN_WEEKS to MAX_WEEKS. */
export function parseWeeks(text: string): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const weeks = Number(text);
  return weeks >= MIN_WEEKS && weeks <= MAX_WEEKS ? weeks : null;
}

export interface Alternative {
  startTime: string;
  endTime: string;
  resourceId: number | null;
}

/** An occurrence of a series that does not fit, with the API's times free instead. */
export interface SeriesConflict {
  startTime: string;
  endTime: string;
  alternatives: Alternative[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * The occurrences that do not fit, from an error envelope (`{error: {conflicts}}`, a 409) or a
 * dry run's refusal (`{wouldSucceed: false, error: {conflicts}}`), by start; [] for anything else.
 */
export function conflictsOf(body: unknown): SeriesConflict[] {
  const error = isObject(body) ? body.error : undefined;
  const list = isObject(error) && Array.isArray(error.conflicts) ? error.conflicts : [];
  return list
    .filter(
      (c): c is SeriesConflict =>
        isObject(c) && typeof c.startTime === 'string' && typeof c.endTime === 'string',
    )
    .map((c) => ({
      startTime: c.startTime,
      endTime: c.endTime,
      alternatives: Array.isArray(c.alternatives) ? c.alternatives : [],
    }))
    .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
}

/** The sum of the occurrences' prices, or null when any has none or they differ in currency. */
export function totalPrice(
  reservations: { priceAmount: number | null; priceCurrency: string | null }[],
): { amount: number; currency: string } | null {
  const first = reservations[0];
  if (!first?.priceCurrency) return null;
  let amount = 0;
  for (const r of reservations) {
    if (r.priceAmount == null || r.priceCurrency?.toLowerCase() !== first.priceCurrency.toLowerCase())
      return null;
    amount += r.priceAmount;
  }
  return { amount, currency: first.priceCurrency };
}
