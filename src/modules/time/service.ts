import type { z } from 'zod';
import type { Actor } from '../../lib/actor.js';
import { invalidFields } from '../../lib/errors.js';
import { zoneName } from '../../lib/time-zones.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { timeConvertInput, timeConvertOutput, timeNowInput, timeNowOutput } from './schemas.js';
import { instantsOf, LOCAL_TIME, localOf } from './zones.js';

export type TimeService = ReturnType<typeof createTimeService>;

/**
 * The clock and zone tools: models get dates wrong, and a booking at the wrong hour is
 * the worst bug a booking agent can have. Every answer names its zone and offset.
 */
export function createTimeService({
  organisations,
}: {
  organisations: () => Pick<OrganisationsService, 'requireTenant'>;
}) {
  /** The organisation's zone, or UTC when the person has no active organisation. */
  async function defaultZone(actor: Actor): Promise<{ zone: string; source: 'organisation' | 'utc' }> {
    try {
      return { zone: (await organisations().requireTenant(actor)).timezone, source: 'organisation' };
    } catch {
      return { zone: 'UTC', source: 'utc' };
    }
  }

  const zonedView = (ms: number, zone: string) => ({ timeZone: zone, ...localOf(ms, zone) });

  return {
    async now(actor: Actor, input: z.infer<typeof timeNowInput>): Promise<z.infer<typeof timeNowOutput>> {
      const chosen = input.timeZone
        ? { zone: zoneName(input.timeZone) ?? 'UTC', source: 'argument' as const }
        : await defaultZone(actor);
      const now = Date.now();
      return { now: new Date(now).toISOString(), ...zonedView(now, chosen.zone), zoneSource: chosen.source };
    },

    async convert(
      actor: Actor,
      input: z.infer<typeof timeConvertInput>,
    ): Promise<z.infer<typeof timeConvertOutput>> {
      const fallback = input.fromTimeZone && input.toTimeZone ? null : (await defaultZone(actor)).zone;
      const from = zoneName(input.fromTimeZone ?? '') ?? fallback ?? 'UTC';
      const to = zoneName(input.toTimeZone ?? '') ?? fallback ?? 'UTC';
      let instant: number;
      let note: string | null = null;
      const local = LOCAL_TIME.exec(input.time);
      if (local) {
        const [, y, mo, d, h, mi, s] = local.map(Number) as number[];
        const day = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s || 0));
        if (
          day.getUTCMonth() !== mo! - 1 ||
          day.getUTCDate() !== d ||
          day.getUTCHours() !== h ||
          day.getUTCMinutes() !== mi ||
          (s ?? 0) > 59
        )
          throw invalidFields([{ path: 'time', message: 'is not a valid date and time' }]);
        const found = instantsOf(input.time, from);
        if (found.length === 0)
          throw invalidFields([
            {
              path: 'time',
              message: `does not exist in ${from}: the clocks skip it (daylight saving time starts)`,
            },
          ]);
        instant = found[0]!;
        if (found.length > 1)
          note = `${input.time} happens twice in ${from} (daylight saving time ends): the earlier, ${localOf(instant, from).local}, was taken; the later is ${localOf(found[1]!, from).local}`;
      } else {
        if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(input.time))
          throw invalidFields([
            {
              path: 'time',
              message: 'must be an instant with offset (…Z, …+01:00) or a wall time (2026-03-03T10:00)',
            },
          ]);
        instant = Date.parse(input.time);
        if (Number.isNaN(instant))
          throw invalidFields([{ path: 'time', message: 'is not a valid date and time' }]);
      }
      return {
        instant: new Date(instant).toISOString(),
        from: zonedView(instant, from),
        to: zonedView(instant, to),
        note,
      };
    },
  };
}
