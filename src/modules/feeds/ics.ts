import ical, { ICalEventStatus, ICalEventTransparency } from 'ical-generator';
import { DateTime } from 'luxon';
import type { Event } from '../events/schemas.js';

/**
 * The iCalendar (RFC 5545) text of a feed. Every value comes from stored state (DTSTAMP
 * is the row's last change), so an unchanged calendar renders byte for byte the same and
 * its ETag holds. Times are written in their zone with a VTIMEZONE for each zone used.
 */

const PROD_ID = { company: 'reservation-service', product: 'feeds', language: 'EN' } as const;

/** How many years either side of the events' span the VTIMEZONE rules cover. */
const ZONE_MARGIN_YEARS = 1;
const ZONE_MAX_YEARS = 30;

const offsetText = (minutes: number) => {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
};

/** The instant (epoch ms) in (lo, hi] where the zone's offset changes, found by halving. */
function transitionBetween(zone: string, lo: number, hi: number): number {
  const before = DateTime.fromMillis(lo, { zone }).offset;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000;
    if (DateTime.fromMillis(mid, { zone }).offset === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * A VTIMEZONE for `zone` with one STANDARD or DAYLIGHT part per offset change in
 * [fromYear, toYear], as luxon (the platform's tz data) knows them; a zone without
 * changes (UTC, Asia/Tokyo) gets one part.
 */
export function vtimezone(zone: string, fromYear: number, toYear: number): string {
  const start = DateTime.fromObject({ year: fromYear, month: 1, day: 1 }, { zone: 'UTC' }).toMillis();
  const end = DateTime.fromObject({ year: toYear + 1, month: 1, day: 1 }, { zone: 'UTC' }).toMillis();
  const parts: string[] = [];
  const first = DateTime.fromMillis(start, { zone });
  let previous = first.offset;
  const part = (at: number, from: number, to: number) => {
    const local = DateTime.fromMillis(at, { zone: 'UTC' }).plus({ minutes: from });
    // Daylight time: an offset above the year's standard one (the lesser of January's and July's).
    const year = DateTime.fromMillis(at, { zone });
    const standard = Math.min(year.set({ month: 1, day: 1 }).offset, year.set({ month: 7, day: 1 }).offset);
    const daylight = to > standard;
    const kind = daylight ? 'DAYLIGHT' : 'STANDARD';
    const name = DateTime.fromMillis(at, { zone }).toFormat('ZZZZ');
    parts.push(
      [
        `BEGIN:${kind}`,
        `DTSTART:${local.toFormat("yyyyMMdd'T'HHmmss")}`,
        `TZOFFSETFROM:${offsetText(from)}`,
        `TZOFFSETTO:${offsetText(to)}`,
        `TZNAME:${name}`,
        `END:${kind}`,
      ].join('\r\n'),
    );
  };
  part(start, previous, previous);
  const DAY = 86_400_000;
  for (let at = start + DAY; at <= end; at += DAY) {
    const offset = DateTime.fromMillis(at, { zone }).offset;
    if (offset === previous) continue;
    const changedAt = transitionBetween(zone, at - DAY, at);
    part(changedAt, previous, offset);
    previous = offset;
  }
  return ['BEGIN:VTIMEZONE', `TZID:${zone}`, ...parts, 'END:VTIMEZONE'].join('\r\n');
}

/** Generated VTIMEZONE blocks by zone and years: a feed read again costs no zone scan. */
const zoneBlocks = new Map<string, string>();
function cachedVtimezone(zone: string, fromYear: number, toYear: number): string {
  const key = `${zone}|${fromYear}|${toYear}`;
  let block = zoneBlocks.get(key);
  if (!block) {
    block = vtimezone(zone, fromYear, toYear);
    if (zoneBlocks.size > 500) zoneBlocks.clear();
    zoneBlocks.set(key, block);
  }
  return block;
}

/** The years the VTIMEZONE parts cover: the instants' span and a margin, at most 30 years. */
function yearsOf(instants: readonly string[], nowMs: number): [number, number] {
  let from = new Date(nowMs).getUTCFullYear();
  let to = from;
  for (const instant of instants) {
    const year = Number(instant.slice(0, 4));
    if (year < from) from = year;
    if (year > to) to = year;
  }
  from -= ZONE_MARGIN_YEARS;
  to = Math.min(to + ZONE_MARGIN_YEARS, from + ZONE_MAX_YEARS);
  return [from, to];
}

function newCalendar(name: string, zone: string, years: [number, number]) {
  return ical({
    prodId: PROD_ID,
    name,
    timezone: { name: zone, generator: (tz) => cachedVtimezone(tz, years[0], years[1]) },
  });
}

/**
 * Recurrence lines as ical-generator takes them (it prefixes a lone rule with RRULE:), written
 * as they are. A line break in a stored line (written before the API refused them) would start
 * lines of its own: such an event is its first occurrence, as the API shows it.
 */
function repeatingOf(lines: readonly string[]): string | null {
  if (lines.some((line) => /[\r\n]/.test(line))) return null;
  const rules = lines.filter((line) => /^(RRULE|EXDATE|RDATE)[:;]/i.test(line));
  if (rules.length === 0 || !rules.some((line) => /^RRULE:/i.test(line))) return null;
  return rules.join('\r\n');
}

/** A calendar's feed: every event as stored (recurring ones as their rules), in their own zones. */
export function calendarFeed(
  calendar: { id: number; name: string; timezone: string },
  events: readonly Event[],
  host: string,
  nowMs: number,
): string {
  const years = yearsOf(
    events.flatMap((e) => [e.startTime, e.endTime]),
    nowMs,
  );
  const feed = newCalendar(calendar.name, calendar.timezone, years);
  for (const event of events) {
    const zone = event.timezone;
    feed.createEvent({
      id: `event-${event.id}@${host}`,
      stamp: new Date(event.updatedAt),
      lastModified: new Date(event.updatedAt),
      created: new Date(event.createdAt),
      start: DateTime.fromISO(event.startTime, { zone }),
      end: DateTime.fromISO(event.endTime, { zone }),
      allDay: event.allDay,
      ...(event.allDay ? {} : { timezone: zone }),
      summary: event.title,
      description: event.description,
      location: event.location,
      repeating: repeatingOf(event.recurrence),
      transparency:
        event.transparency === 'transparent'
          ? ICalEventTransparency.TRANSPARENT
          : ICalEventTransparency.OPAQUE,
    });
  }
  return feed.toString();
}

export interface FeedReservation {
  id: number;
  startTime: string;
  endTime: string;
  status: string;
  updatedAt: string;
}

/** A resource's feed: its reservations as busy blocks, without who booked them. */
export function resourceFeed(
  resource: { id: number; name: string },
  zone: string,
  reservations: readonly FeedReservation[],
  host: string,
  nowMs: number,
): string {
  const years = yearsOf(
    reservations.flatMap((r) => [r.startTime, r.endTime]),
    nowMs,
  );
  const feed = newCalendar(resource.name, zone, years);
  for (const r of reservations) {
    feed.createEvent({
      // The same UID the booking mails use, so a calendar holding both shows one entry.
      id: `reservation-${r.id}@${host}`,
      stamp: new Date(r.updatedAt),
      lastModified: new Date(r.updatedAt),
      start: DateTime.fromISO(r.startTime, { zone }),
      end: DateTime.fromISO(r.endTime, { zone }),
      timezone: zone,
      summary: `${resource.name}: booked (#${r.id})`,
      status: r.status === 'confirmed' ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
      transparency: ICalEventTransparency.OPAQUE,
    });
  }
  return feed.toString();
}
