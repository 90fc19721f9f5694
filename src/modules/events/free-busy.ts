import type { Actor } from '../../lib/actor.js';
import { invalidField } from '../../lib/errors.js';
import { type BusySpan, busySpans } from './busy.js';
import type { EventContext } from './context.js';
import type { FreeBusy, FreeBusyQuery } from './schemas.js';

/** Longest range one free/busy question may cover. */
export const MAX_FREE_BUSY_DAYS = 62;

/** Spans in start order, overlapping and touching ones joined, clipped to [from, to). */
function mergeSpans(spans: BusySpan[], from: number, to: number): BusySpan[] {
  const merged: BusySpan[] = [];
  for (const span of spans.sort((a, b) => a.start - b.start)) {
    const start = Math.max(span.start, from);
    const end = Math.min(span.end, to);
    if (end <= start) continue;
    const last = merged[merged.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged;
}

export async function freeBusy(
  { repo, calendars }: EventContext,
  actor: Actor,
  query: FreeBusyQuery,
): Promise<FreeBusy> {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  if (!(to > from)) throw invalidField('to', 'must be after from');
  if (to - from > MAX_FREE_BUSY_DAYS * 86_400_000)
    throw invalidField('to', `the range may cover at most ${MAX_FREE_BUSY_DAYS} days`);
  const owned = query.calendarIds
    ? await calendars.requireOwnedMany(actor, query.calendarIds)
    : (await calendars.list(actor)).filter((calendar) => calendar.accessRole === 'owner');
  const ids = query.calendarIds ? [...new Set(query.calendarIds)] : owned.map((calendar) => calendar.id);
  const rows = await repo.listBusy(ids, new Date(from).toISOString(), new Date(to).toISOString());
  const byCalendar = new Map<number, typeof rows>(ids.map((id) => [id, []]));
  for (const row of rows) byCalendar.get(row.calendarId)?.push(row);
  return {
    calendars: ids.map((calendarId) => ({
      calendarId,
      busy: mergeSpans(busySpans(byCalendar.get(calendarId) ?? [], from, to), from, to).map((span) => ({
        start: new Date(span.start).toISOString(),
        end: new Date(span.end).toISOString(),
      })),
    })),
  };
}
