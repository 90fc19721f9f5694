// What the slot picker offers: the bookable times of an availability tool's answer
// (availability_resource_read, availability_resourceType_read, availability_explain), grouped
// by day in the person's zone. Pure: the answers come in loosely (the host hands them over).

/** Where a picked slot is booked: one resource, or a resource type's pool. */
export type Target = { resourceId: number } | { resourceTypeId: number };

export interface OfferedSlot {
  start: string;
  end: string;
  target: Target;
  /** What it is booked on, for the person: "Resource 12", "Any resource". */
  place: string;
}

/** A free range of continuous mode is offered as starts this far apart, each this long. */
export const CONTINUOUS_MINUTES = 60;

interface Times {
  windows?: Array<{ start: string; end: string; freeLanes?: number }>;
  slots?: Array<{ start: string; end: string; available: boolean }>;
}

/** Slots of shifts mode as they are; windows of continuous mode cut into CONTINUOUS_MINUTES. */
function timesOf(times: Times): Array<{ start: string; end: string }> {
  if (times.slots) return times.slots.filter((slot) => slot.available);
  const step = CONTINUOUS_MINUTES * 60_000;
  return (times.windows ?? []).flatMap((window) => {
    const cut: Array<{ start: string; end: string }> = [];
    const end = Date.parse(window.end);
    for (let start = Date.parse(window.start); start + step <= end; start += step)
      cut.push({ start: new Date(start).toISOString(), end: new Date(start + step).toISOString() });
    return cut;
  });
}

const onResource = (resourceId: number, times: Times): OfferedSlot[] =>
  timesOf(times).map((time) => ({ ...time, target: { resourceId }, place: `Resource ${resourceId}` }));

type Loose = Record<string, unknown>;
const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null;

/**
 * The slots an answer offers, by start. `input`: the tool's arguments (an explanation's time
 * is the one asked, not in the answer). Anything else: none.
 */
export function offeredSlots(answer: unknown, input: Loose = {}): OfferedSlot[] {
  if (!isObject(answer)) return [];
  const slots = slotsOfAnswer(answer, input);
  return slots.sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

function slotsOfAnswer(answer: Loose, input: Loose): OfferedSlot[] {
  if (typeof answer.bookable === 'boolean' && Array.isArray(answer.resources)) {
    const { startTime, endTime } = input;
    if (typeof startTime !== 'string' || typeof endTime !== 'string') return [];
    return (answer.resources as Array<{ resourceId: number; bookable: boolean }>)
      .filter((resource) => resource.bookable)
      .map(({ resourceId }) => ({
        start: startTime,
        end: endTime,
        target: { resourceId },
        place: `Resource ${resourceId}`,
      }));
  }
  if (typeof answer.resourceTypeId === 'number') {
    const resourceTypeId = answer.resourceTypeId;
    const pool = isObject(answer.pool)
      ? timesOf(answer.pool as Times).map((time) => ({
          ...time,
          target: { resourceTypeId },
          place: 'Any resource',
        }))
      : [];
    const each = ((answer.resources ?? []) as Array<Times & { resourceId: number }>).flatMap((resource) =>
      onResource(resource.resourceId, resource),
    );
    return [...pool, ...each];
  }
  if (typeof answer.resourceId === 'number') return onResource(answer.resourceId, answer as Times);
  return [];
}

export interface Day {
  /** The day in the zone, `YYYY-MM-DD`: a stable key. */
  key: string;
  label: string;
  slots: OfferedSlot[];
}

/** The slots grouped by their start's day in `timeZone`, in order. */
export function byDay(slots: readonly OfferedSlot[], timeZone: string, locale?: string): Day[] {
  const key = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const label = new Intl.DateTimeFormat(locale, { timeZone, weekday: 'long', month: 'long', day: 'numeric' });
  const days = new Map<string, Day>();
  for (const slot of slots) {
    const start = new Date(slot.start);
    const dayKey = key.format(start);
    const day = days.get(dayKey) ?? { key: dayKey, label: label.format(start), slots: [] };
    day.slots.push(slot);
    days.set(dayKey, day);
  }
  return [...days.values()];
}

/** "09:00–10:00" in `timeZone` (the day is its group's, even when the slot ends the next). */
export function timeRange(slot: OfferedSlot, timeZone: string, locale?: string): string {
  const time = new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit' });
  return `${time.format(new Date(slot.start))}–${time.format(new Date(slot.end))}`;
}

/** The zone the person reads times in: the host's, else the browser's. */
export function personZone(hostZone: string | undefined): string {
  if (hostZone) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: hostZone });
      return hostZone;
    } catch {
      // An unknown zone from the host: the browser's instead.
    }
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
