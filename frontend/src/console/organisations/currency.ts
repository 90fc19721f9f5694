// Money in the organisation's currency: what a new type is priced in and an agent policy counts in.
import type { Organisation } from '../../api/types.js';

/**
 * The organisation's currency (its payment account's too: the payment status answers the same
 * code): what a new type is priced in and what an agent policy's amounts are counted in.
 */
export const organisationCurrency = (org: Pick<Organisation, 'defaultCurrency'>) =>
  org.defaultCurrency.toUpperCase();

/** Minor units per major unit of a currency: 100 for EUR, 1 for JPY. */
export function minorPerMajor(currency: string): number {
  try {
    const f = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    return 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2);
  } catch {
    return 100;
  }
}
