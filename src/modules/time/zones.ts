/**
 * Time zone arithmetic on the platform's tz database (Intl), DST-correct: the offset a
 * zone has at an instant, an instant as wall time with its offset, and wall time in a
 * zone as an instant (a time the clocks skip does not exist; one they repeat is ambiguous).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallAt(ms: number, timeZone: string): Wall & { weekday: string } {
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: String(parts.weekday),
  };
}

const wallMs = (w: Wall) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The zone's offset from UTC at an instant, in minutes (Europe/Berlin in summer: 120). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const wholeSeconds = Math.floor(ms / 1000) * 1000;
  return Math.round((wallMs(wallAt(wholeSeconds, timeZone)) - wholeSeconds) / 60_000);
}

/** "+02:00", "-05:00", "+05:45". */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** An instant as the zone's wall time: `2026-03-03T10:00:00+01:00`, its offset and weekday. */
export function localOf(ms: number, timeZone: string): { local: string; offset: string; weekday: string } {
  const w = wallAt(ms, timeZone);
  const offset = formatOffset(offsetMinutes(ms, timeZone));
  return {
    local: `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${offset}`,
    offset,
    weekday: w.weekday,
  };
}

/** A wall time without offset: `2026-03-03T10:00` or with seconds. */
export const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The instants at which the zone's clocks show this wall time: one usually, none in a
 * gap (clocks moved forward past it), two in an overlap (clocks moved back), earliest first.
 */
export function instantsOf(local: string, timeZone: string): number[] {
  const match = LOCAL_TIME.exec(local);
  if (!match) return [];
  const [, y, mo, d, h, mi, s] = match;
  const wall: Wall = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
  };
  const asUtc = wallMs(wall);
  const candidates = new Set<number>();
  // The offsets in force half a day either side cover any one transition.
  for (const probe of [asUtc - 43_200_000, asUtc, asUtc + 43_200_000])
    candidates.add(asUtc - offsetMinutes(probe, timeZone) * 60_000);
  return [...candidates].filter((ms) => wallMs(wallAt(ms, timeZone)) === asUtc).sort((a, b) => a - b);
}
