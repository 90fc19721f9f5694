/**
 * Times and money as the mails show them, in the organisation's zone and the price's
 * currency. Pure and cheap: subjects are written on the request thread, words on the sender's.
 */

/**
 * A time's calendar fields in a zone, read by `Intl` formatters made once a zone (luxon's
 * `toFormat` cost a mail about 100 µs of the thread's rendering); a zone the runtime does not
 * know reads in UTC rather than costing the mail.
 */
interface ZonedTime {
  weekday: string;
  day: string;
  month: string;
  year: string;
  hour: string;
  minute: string;
}
interface ZoneFormats {
  /** The zone the times are read in: the one asked for, or UTC for one the runtime does not know. */
  zone: string;
  /** `2 March 2027`, by `format` (about 2 µs): the subject's, written on the request thread. */
  day: Intl.DateTimeFormat;
  /** Every field, by `formatToParts` (about 5 µs): the words', written on the sender's thread. */
  fields: Intl.DateTimeFormat;
}
const zoneFormats = new Map<string, ZoneFormats>();
export function formatsOf(zone: string): ZoneFormats {
  let formats = zoneFormats.get(zone);
  if (!formats) {
    const day = { day: 'numeric', month: 'long', year: 'numeric' } as const;
    const fields = { ...day, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
    let timeZone = zone;
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone });
    } catch {
      timeZone = 'UTC';
    }
    formats = {
      zone: timeZone,
      day: new Intl.DateTimeFormat('en-GB', { ...day, timeZone }),
      fields: new Intl.DateTimeFormat('en-GB', { ...fields, timeZone }),
    };
    // Zones come from organisations' settings: a bound keeps a stray one from growing it.
    if (zoneFormats.size < 1_000) zoneFormats.set(zone, formats);
  }
  return formats;
}

/** `iso` as a Date, or null for a time it cannot read (shown as stored, never thrown: a throw fails the mail). */
export function readTime(iso: string): Date | null {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The fields of `iso` in `zone`, or null for a time it cannot read. */
function zoned(iso: string, zone: string): ZonedTime | null {
  const at = readTime(iso);
  if (!at) return null;
  const time: Record<string, string> = {};
  for (const { type, value } of formatsOf(zone).fields.formatToParts(at)) time[type] = value;
  return time as unknown as ZonedTime;
}

const dayText = (t: ZonedTime) => `${t.day} ${t.month} ${t.year}`;
const clockText = (t: ZonedTime) => `${t.hour}:${t.minute}`;

/** `Tuesday 2 March 2027, 10:00–11:00 (Europe/Berlin)`, in the organisation's zone. */
export function formatSpan(startIso: string, endIso: string, zone: string): string {
  const start = zoned(startIso, zone);
  const end = zoned(endIso, zone);
  const shown = formatsOf(zone).zone;
  if (!start || !end) return `${startIso}–${endIso} (${shown})`;
  const endText =
    dayText(end) === dayText(start) ? clockText(end) : `${end.weekday} ${dayText(end)}, ${clockText(end)}`;
  return `${start.weekday} ${dayText(start)}, ${clockText(start)}–${endText} (${shown})`;
}

/** `2 March 2027, 10:00 (Europe/Berlin)`. */
export function formatInstant(iso: string, zone: string): string {
  const at = zoned(iso, zone);
  return `${at ? `${dayText(at)}, ${clockText(at)}` : iso} (${formatsOf(zone).zone})`;
}

/** Integer minor units as the currency shows them: 1250 EUR is €12.50, 1250 JPY is ¥1,250. */
export function formatMoney(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency.toUpperCase()} (minor units)`;
  }
}

/** `2 March 2027` in `zone`: a booking's subject names its day so. */
export function formatDay(iso: string, zone: string): string {
  const at = readTime(iso);
  return at ? formatsOf(zone).day.format(at) : iso;
}
