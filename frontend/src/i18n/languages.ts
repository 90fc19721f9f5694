// The customer pages' languages and how one is chosen (DECISIONS.md "Booking everywhere"): kept
// free of React and the DOM so test/frontend can check it.

import { LOCALES, type Locale } from '../../../src/i18n/locales.js';

/** The languages of the booking, manage and payment-return pages (the service's own list); `en` is the last resort. */
export const LANGUAGES = LOCALES;
export type Language = Locale;

/** Each language in its own words, as the switcher lists it. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
};

/** What the page says while its catalogue loads: the one text shown before it. */
export const LOADING_WORDS: Record<Language, string> = {
  en: 'Loading…',
  de: 'Wird geladen…',
  fr: 'Chargement…',
  es: 'Cargando…',
};

/** What the page says when its catalogue cannot be loaded (a lost connection). */
export const FAILED_WORDS: Record<Language, string> = {
  en: 'The page could not be loaded. Check your connection and reload it.',
  de: 'Die Seite konnte nicht geladen werden. Prüfen Sie Ihre Verbindung und laden Sie sie neu.',
  fr: 'La page n’a pas pu être chargée. Vérifiez votre connexion et rechargez-la.',
  es: 'No se pudo cargar la página. Compruebe su conexión y vuelva a cargarla.',
};

/** The language of a tag (`de-AT`, `FR`, `es_419`), or null when the pages do not speak it. */
export function languageOf(tag: string | null | undefined): Language | null {
  const base = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : null;
}

/** Where the choice comes from, in the order it is made. */
export interface LanguageSources {
  /** `?lang=`: another value than the four is passed over, never an error. */
  query: string | null;
  /** The browser's languages, most preferred first (`navigator.languages`, its Accept-Language). */
  browser: readonly string[];
  /** The organisation's `defaultLocale`; undefined while it is not known yet. */
  organisationDefault?: string | null | undefined;
}

/**
 * The language `?lang=` names, else the first of the browser's the pages speak, else the
 * organisation's default, else `en`. Null while only the organisation's default, still unknown,
 * could decide.
 */
export function chooseLanguage({ query, browser, organisationDefault }: LanguageSources): Language | null {
  const asked = languageOf(query);
  if (asked) return asked;
  for (const tag of browser) {
    const spoken = languageOf(tag);
    if (spoken) return spoken;
  }
  if (organisationDefault === undefined) return null;
  return languageOf(organisationDefault) ?? 'en';
}

/**
 * The locale dates, numbers and prices are written in: the browser's own tag of the chosen
 * language where it has one (`en-GB` writes 1 March, `en-US` March 1), else the language.
 */
export function intlLocale(language: Language, browser: readonly string[]): string {
  const own = browser.find((tag) => languageOf(tag) === language && /^[a-z]{2}-[A-Za-z0-9]+$/i.test(tag));
  if (!own) return language;
  try {
    return Intl.getCanonicalLocales(own)[0] ?? language;
  } catch {
    return language;
  }
}
