/** An amount in minor units in the currency's own words: 2500 EUR is "€25.00" (in `locale`: "25,00 €"). */
export function formatPrice(amount: number, currency: string, locale?: string): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}
