/** Random schedules for the availability tests that compare answers over random data (seeded, so a run replays). */

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
export function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}
export type Random = ReturnType<typeof generator>;

export const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export function randomHours(r: Random) {
  const days = [0, 1, 2, 3, 4, 5, 6].filter(() => r.chance(0.8));
  return days.map((dayOfWeek) => {
    const open = r.pick([0, 0, 60, 120, 150, 180, 420, 480, 510, 540]);
    const close = r.pick([1440, 1440, 1320, 1080, 1020, 900]);
    return {
      dayOfWeek,
      openTime: hhmm(open),
      closeTime: hhmm(close),
      ...(r.chance(0.1) ? { isActive: false } : {}),
    };
  });
}

export function randomShifts(r: Random) {
  const days = [0, 1, 2, 3, 4, 5, 6].filter(() => r.chance(0.8));
  return days.map((dayOfWeek) => {
    // Slots from 01:00 on, so some fall into the hour a clock change skips or repeats.
    const slots: Array<{ startTime: string; endTime: string }> = [];
    let at = r.pick([60, 120, 480]);
    while (slots.length < 5 && at < 1380) {
      const length = r.pick([30, 60, 90, 120, 180]);
      const end = Math.min(1440, at + length);
      slots.push({ startTime: hhmm(at), endTime: hhmm(end) });
      at = end + r.pick([0, 0, 30, 60]);
    }
    return { dayOfWeek, slots };
  });
}

export function randomPolicy(r: Random, mode?: 'continuous' | 'shifts') {
  const policy: Record<string, unknown> = {};
  if (mode) policy.availabilityMode = mode;
  if (r.chance(0.7)) policy.operatingHours = randomHours(r);
  if (r.chance(0.7)) policy.shiftSchedule = randomShifts(r);
  return policy;
}
