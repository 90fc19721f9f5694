import { createInstance } from 'i18next';
import deMail from './locales/de/mail.json' with { type: 'json' };
import enMail from './locales/en/mail.json' with { type: 'json' };
import esMail from './locales/es/mail.json' with { type: 'json' };
import frMail from './locales/fr/mail.json' with { type: 'json' };
import { FALLBACK_LOCALE, LOCALES, type Locale } from './locales.js';

/**
 * The server's translations (DECISIONS.md "Booking everywhere"): one catalogue a language and
 * namespace under src/i18n/locales/<language>/<namespace>.json, `en` the reference every other
 * is checked against (test/i18n/catalogues.test.ts). One i18next instance, loaded once from
 * the catalogues bundled here (no files read, no back end); a render names its language on each
 * call, never switches the instance's language, so renders of different languages never race.
 */

/** The dotted keys of a catalogue: `payment.subject`. */
type KeysOf<T> = {
  [K in keyof T & string]: T[K] extends string ? K : `${K}.${KeysOf<T[K]>}`;
}[keyof T & string];

export type MailKey = KeysOf<typeof enMail>;
/** Words of the `mail` namespace in one language, with `{{name}}` values put in. */
export type MailTranslator = (key: MailKey, values?: Record<string, string>) => string;

const i18n = createInstance({
  resources: {
    en: { mail: enMail },
    de: { mail: deMail },
    fr: { mail: frMail },
    es: { mail: esMail },
  } satisfies Record<Locale, { mail: unknown }>,
  lng: FALLBACK_LOCALE,
  fallbackLng: FALLBACK_LOCALE,
  supportedLngs: [...LOCALES],
  ns: ['mail'],
  defaultNS: 'mail',
  // The mails escape what they show in their HTML (layout.ts); the plain text takes it as it is.
  interpolation: { escapeValue: false },
  initAsync: false,
});
void i18n.init();

const translators = new Map<Locale, MailTranslator>();

/**
 * The `mail` words of `locale`: a key it lacks falls back to `en` (the catalogue test keeps none
 * missing). Each call names its language to the instance's `t`: the translator `getFixedT` makes
 * would copy all of the instance's options into a new object on every call, a dozen times a mail.
 */
export function mailTranslator(locale: Locale): MailTranslator {
  let translate = translators.get(locale);
  if (!translate) {
    translate = (key, values) => i18n.t(key, { ...values, lng: locale, ns: 'mail' });
    translators.set(locale, translate);
  }
  return translate;
}
