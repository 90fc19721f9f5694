import type { Locale } from '../../i18n/locales.js';

/**
 * Times and money as the mails show them, in a language (`en` by default) and a zone (the
 * customer's, else the organisation's), by `Intl`. Pure and cheap: subjects are written on the
 * request thread, words on the sender's.
 */

/** The Intl locale a language's mails are written in: `en` as in Britain (`2 March 2027`, `14:00`). */
const intlLocale = (locale: Locale) => (locale === 'en' ? 'en-GB' : locale);

/** A time's texts in a zone and language. */
interface ZonedText {
  /** `Tuesday 2 March 2027`, `Dienstag, 2. März 2027`. */
  longDay: string;
  /** `2 March 2027`, `2. März 2027`. */
  day: string;
  /** `14:00`. */
  clock: string;
}

/**
 * A zone's and language's formatters, made once each (luxon's `toFormat` cost a mail about
 * 100 µs of the thread's rendering); a zone the runtime does not know reads in UTC rather than
 * costing the mail.
 */
interface ZoneFormats {
  /** The zone the times are read in: the one asked for, or UTC for one the runtime does not know. */
  zone: string;
  /** The day alone, by `format` (about 2 µs): the subject's, written on the request thread. */
  day: Intl.DateTimeFormat;
  /** A time's texts (about 5 µs): the words', written on the sender's thread. */
  texts(at: Date): ZonedText;
}
const zoneFormats = new Map<string, ZoneFormats>();

function makeFormats(zone: string, locale: Locale): ZoneFormats {
  let timeZone = zone;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone });
  } catch {
    timeZone = 'UTC';
  }
  const tag = intlLocale(locale);
  const dayOptions = { day: 'numeric', month: 'long', year: 'numeric', timeZone } as const;
  const clockOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone } as const;
  const day = new Intl.DateTimeFormat(tag, dayOptions);
  const longDay = new Intl.DateTimeFormat(tag, { ...dayOptions, weekday: 'long' });
  const clock = new Intl.DateTimeFormat(tag, clockOptions);
  if (locale !== 'en')
    return {
      zone: timeZone,
      day,
      texts: (at) => ({ longDay: longDay.format(at), day: day.format(at), clock: clock.format(at) }),
    };
  // English as the mails always wrote it: `Tuesday 2 March 2027` (en-GB's own has a comma).
  const fields = new Intl.DateTimeFormat(tag, { ...dayOptions, ...clockOptions, weekday: 'long' });
  return {
    zone: timeZone,
    day,
    texts(at) {
      const t: Record<string, string> = {};
      for (const { type, value } of fields.formatToParts(at)) t[type] = value;
      const dayText = `${t.day} ${t.month} ${t.year}`;
      return { longDay: `${t.weekday} ${dayText}`, day: dayText, clock: `${t.hour}:${t.minute}` };
    },
  };
}

export function formatsOf(zone: string, locale: Locale = 'en'): ZoneFormats {
  const key = `${locale} ${zone}`;
  let formats = zoneFormats.get(key);
  if (!formats) {
    formats = makeFormats(zone, locale);
    // Zones come from organisations' settings and customers: a bound keeps stray ones from growing it.
    if (zoneFormats.size < 1_000) zoneFormats.set(key, formats);
  }
  return formats;
}

/** `iso` as a Date, or null for a time it cannot read (shown as stored, never thrown: a throw fails the mail). */
export function readTime(iso: string): Date | null {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The texts of `iso` in `zone`, or null for a time it cannot read. */
function zoned(iso: string, zone: string, locale: Locale): ZonedText | null {
  const at = readTime(iso);
  return at ? formatsOf(zone, locale).texts(at) : null;
}

/** `Tuesday 2 March 2027, 10:00–11:00 (Europe/Berlin)`, in `zone`, which it names. */
export function formatSpan(startIso: string, endIso: string, zone: string, locale: Locale = 'en'): string {
  const start = zoned(startIso, zone, locale);
  const end = zoned(endIso, zone, locale);
  const shown = formatsOf(zone, locale).zone;
  if (!start || !end) return `${startIso}–${endIso} (${shown})`;
  const endText = end.day === start.day ? end.clock : `${end.longDay}, ${end.clock}`;
  return `${start.longDay}, ${start.clock}–${endText} (${shown})`;
}

/** `2 March 2027, 10:00 (Europe/Berlin)`. */
export function formatInstant(iso: string, zone: string, locale: Locale = 'en'): string {
  const at = zoned(iso, zone, locale);
  return `${at ? `${at.day}, ${at.clock}` : iso} (${formatsOf(zone, locale).zone})`;
}

/** Integer minor units as the currency shows them: 1250 EUR is €12.50 (`12,50 €` in German), 1250 JPY is ¥1,250. */
export function formatMoney(amount: number, currency: string, locale: Locale = 'en'): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency.toUpperCase()} (minor units)`;
  }
}

/** `2 March 2027` in `zone`: a booking's subject names its day so. */
export function formatDay(iso: string, zone: string, locale: Locale = 'en'): string {
  const at = readTime(iso);
  return at ? formatsOf(zone, locale).day.format(at) : iso;
}
