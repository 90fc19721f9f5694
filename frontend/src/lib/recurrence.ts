// The booking page's series logic, kept free of React and the DOM so test/frontend can check it:
// the weekly rule a customer picks and what a series costs in all.

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
