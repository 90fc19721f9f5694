/**
 * The languages customers are served in (DECISIONS.md "Booking everywhere"): the booking,
 * manage and payment-return pages and every customer mail. `en` is the fallback and the
 * catalogue every other language is checked against (test/i18n/catalogues.test.ts).
 */
export const LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export const FALLBACK_LOCALE: Locale = 'en';

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/**
 * The language to serve: the first of `choices` that is one of LOCALES (a customer's own,
 * then the organisation's default), else `en`.
 */
export function localeOf(...choices: ReadonlyArray<string | null | undefined>): Locale {
  return choices.find(isLocale) ?? FALLBACK_LOCALE;
}
