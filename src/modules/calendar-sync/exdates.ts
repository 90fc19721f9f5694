import { DomainError } from '../../lib/errors.js';
import type { Reminder } from '../events/schemas.js';
import { checkEvent, type EventService } from '../events/service.js';
import type { ExternalTime } from './providers/port.js';
import type { Mapping, SyncRepo } from './repo.js';
import type { SyncLogger } from './sync-context.js';

/** Our EXDATE lines carry this x-param (RFC 5545 allows them), so they can be rebuilt and are never pushed. */
const OWN_EXDATE = 'X-SYNC-EXCEPTION=TRUE';
const EXDATES_PER_LINE = 50;

export const isOwnExdate = (line: string) =>
  line.toUpperCase().startsWith('EXDATE;') && line.includes(OWN_EXDATE);

/** RFC 5545 value of an occurrence's original start: `YYYYMMDD` or `YYYYMMDDTHHMMSSZ`. */
export function exdateValue(time: ExternalTime): string {
  if ('date' in time) return time.date.replaceAll('-', '');
  return new Date(time.instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Our EXDATE lines for these values: dates and times apart, sorted, a bounded number per line. */
export function exdateLines(values: readonly string[]): string[] {
  const dates = [...new Set(values.filter((v) => v.length === 8))].sort();
  const times = [...new Set(values.filter((v) => v.length !== 8))].sort();
  const lines: string[] = [];
  for (let i = 0; i < dates.length; i += EXDATES_PER_LINE)
    lines.push(`EXDATE;VALUE=DATE;${OWN_EXDATE}:${dates.slice(i, i + EXDATES_PER_LINE).join(',')}`);
  for (let i = 0; i < times.length; i += EXDATES_PER_LINE)
    lines.push(`EXDATE;${OWN_EXDATE}:${times.slice(i, i + EXDATES_PER_LINE).join(',')}`);
  return lines;
}

/** The stored exception dates of each of these provider series, by the series' external id. */
export async function exdatesBySeries(
  repo: SyncRepo,
  mappingId: number,
  seriesIds: readonly string[],
): Promise<Map<string, string[]>> {
  const bySeries = new Map<string, string[]>();
  if (seriesIds.length === 0) return bySeries;
  for (const row of await repo.listExceptions(mappingId, seriesIds)) {
    const list = bySeries.get(row.seriesExternalId);
    if (list) list.push(row.exdate);
    else bySeries.set(row.seriesExternalId, [row.exdate]);
  }
  return bySeries;
}

/** Rebuilds our EXDATE lines of series whose exceptions changed while the series itself did not. */
export async function refreshSeriesExdates(
  work: { mapping: Mapping; repo: SyncRepo; mirrored: ReturnType<EventService['mirrored']>; now: string },
  log: SyncLogger,
  seriesIds: string[],
): Promise<void> {
  const { mapping, mirrored } = work;
  const masters = (
    await mirrored.findByExternalIds(mapping.localCalendarId, mapping.provider, seriesIds)
  ).filter((row) => row.recurrence !== null);
  if (masters.length === 0) return;
  const exceptions = await exdatesBySeries(
    work.repo,
    mapping.id,
    masters.map((row) => row.externalId),
  );
  for (const master of masters) {
    const lines = JSON.parse(master.recurrence!) as string[];
    const next = [
      ...lines.filter((line) => !isOwnExdate(line)),
      ...exdateLines(exceptions.get(master.externalId) ?? []),
    ];
    if (JSON.stringify(next) === JSON.stringify(lines)) continue;
    try {
      const values = checkEvent(mapping.localCalendarId, {
        ...master,
        recurrence: next,
        reminders: JSON.parse(master.reminders) as Reminder[],
      });
      await mirrored.setRecurrence(master.id, values.recurrence, values.occursUntil, work.now);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      log.warn({ mappingId: mapping.id }, 'calendar sync: a series exception could not be applied');
    }
  }
}
