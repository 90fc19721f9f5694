import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { book, customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { validationDetails } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

// Date overrides (issue 50): holidays and special hours by local date at the organisation,
// the resource type and the resource, resolved per date with the sections' precedence; the
// answers, the schedule read and booking all follow them. The week of Monday 6 January 2031.

const weekly = (openTime: string, closeTime: string, days = [0, 1, 2, 3, 4, 5, 6]) =>
  days.map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));
/** `2031-01-<day>` at hh:mm UTC. */
const jan = (day: number, hhmm: string) => `2031-01-${String(day).padStart(2, '0')}T${hhmm}:00.000Z`;

describe('date overrides', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const send = (owner: OrgOwner, method: 'POST' | 'PATCH', url: string, payload: unknown) =>
    t.app.inject({ method, url, headers: owner.auth, payload: payload as Record<string, unknown> });
  const patchOrganisation = (owner: OrgOwner, schedulePolicy: unknown) =>
    send(owner, 'PATCH', `/api/organisations/${owner.organisationId}`, { schedulePolicy });
  async function ok(response: Awaited<ReturnType<typeof send>>) {
    assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
    return response.json();
  }
  async function windows(owner: OrgOwner, resourceId: number, from: string, to: string) {
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/resources/${resourceId}/availability?from=${from}&to=${to}`,
      headers: owner.auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().windows as Array<{ start: string; end: string }>).map((w) => [w.start, w.end]);
  }
  /** The windows of one week day of January 2031 (UTC). */
  const day = (owner: OrgOwner, resourceId: number, d: number) =>
    windows(owner, resourceId, jan(d, '00:00'), jan(d + 1, '00:00'));

  // What these tests vary is the resource and the times.
  const bookFromTo = (user: OrgOwner, resourceId: number, startTime: string, endTime: string) =>
    book(t.app, user, { resourceId, startTime, endTime });

  /** An organisation in `zone`, a type open 09:00-17:00 every day, and one resource of it. */
  let organisations = 0;
  async function catalogue(zone = 'UTC') {
    organisations += 1;
    const slug = `dates-${process.pid}-${organisations}`;
    const owner = await ownerWithOrganisation(t.app, { timezone: zone, slug });
    const type = await createType(t.app, owner, {
      minBookingDuration: 60,
      schedulePolicy: { operatingHours: weekly('09:00', '17:00') },
    });
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    return { owner, type, resource };
  }

  test('a refused override names its entry and field in words, and nothing is written', async () => {
    const { owner, type, resource } = await catalogue();
    const cases: Array<[unknown[], string[]]> = [
      [
        [{ date: '2031-02-29', closed: true }],
        ['dateOverrides.0.date: 2031-02-29 is not a date: February 2031 has 28 days'],
      ],
      [
        [{ date: '2031-13-01', closed: true }],
        ['dateOverrides.0.date: 2031-13-01 is not a date: there is no month 13'],
      ],
      [
        [{ date: '25.12.2031', closed: true }],
        ['dateOverrides.0.date: must be a date YYYY-MM-DD, e.g. 2031-12-25'],
      ],
      [
        [
          { date: '2031-12-24', openTime: '09:00', closeTime: '12:00' },
          { date: '2031-12-25', closed: true },
          { date: '2031-12-26', closed: true },
          { date: '2031-12-31', openTime: '13:00', closeTime: '12:00' },
        ],
        ['dateOverrides.3.closeTime: closeTime 12:00 must be after openTime 13:00'],
      ],
      [
        [{ date: '2031-12-25', closed: true, openTime: '09:00' }],
        [
          'dateOverrides.0.openTime: a day closed all day has no openTime: send either closed: true or openTime and closeTime',
        ],
      ],
      [
        [{ date: '2031-12-25' }],
        [
          'dateOverrides.0.openTime: is required: send openTime and closeTime for special hours, or closed: true',
          'dateOverrides.0.closeTime: is required: send openTime and closeTime for special hours, or closed: true',
        ],
      ],
      [
        [{ date: '2031-12-25', openTime: '10:00' }],
        ['dateOverrides.0.closeTime: is required with openTime: special hours need both'],
      ],
      [
        [{ date: '2031-12-25', closed: false }],
        [
          'dateOverrides.0.closed: must be true (closed all day); for special hours send openTime and closeTime instead',
        ],
      ],
      [
        [{ date: '2031-12-25', openTime: '9:00', closeTime: '12:00' }],
        ['dateOverrides.0.openTime: must be a time HH:mm (24-hour, 00:00 to 23:59)'],
      ],
      [
        [
          { date: '2031-12-25', closed: true },
          { date: '2031-12-26', closed: true },
          { date: '2031-12-25', openTime: '10:00', closeTime: '12:00' },
        ],
        ['dateOverrides.2.date: date 2031-12-25 appears more than once (first at index 0)'],
      ],
    ];
    const targets = [
      (policy: unknown) => patchOrganisation(owner, policy),
      (policy: unknown) => send(owner, 'PATCH', `/api/resource-types/${type.id}`, { schedulePolicy: policy }),
      (policy: unknown) => send(owner, 'PATCH', `/api/resources/${resource.id}`, { schedulePolicy: policy }),
    ];
    for (const target of targets) {
      for (const [dateOverrides, expected] of cases) {
        const details = validationDetails(await target({ dateOverrides }));
        assert.deepEqual(
          details,
          expected.map((d) => `body.schedulePolicy.${d}`),
          JSON.stringify(dateOverrides),
        );
      }
      const tooMany = Array.from({ length: 367 }, (_, i) => ({
        date: new Date(Date.UTC(2031, 0, 1 + i)).toISOString().slice(0, 10),
        closed: true,
      }));
      assert.deepEqual(validationDetails(await target({ dateOverrides: tooMany })), [
        'body.schedulePolicy.dateOverrides: at most 366 date overrides (a year of days)',
      ]);
      // A year's worth is taken, each date once.
      await ok(await target({ dateOverrides: tooMany.slice(0, 366) }));
    }
    // A type creation refused on its override creates nothing.
    const refused = await send(owner, 'POST', '/api/resource-types', {
      name: 'Refused',
      schedulePolicy: { dateOverrides: [{ date: '2031-04-31', closed: true }] },
    });
    assert.deepEqual(validationDetails(refused), [
      'body.schedulePolicy.dateOverrides.0.date: 2031-04-31 is not a date: April 2031 has 30 days',
    ]);
    const types = await ok(
      await t.app.inject({ method: 'GET', url: '/api/resource-types', headers: owner.auth }),
    );
    assert.deepEqual(
      types.map((x: { name: string }) => x.name),
      ['Room'],
    );
  });

  test('overrides are stored by date and read back as sent', async () => {
    const { owner, type } = await catalogue();
    const dateOverrides = [
      { date: '2031-12-31', openTime: '09:00', closeTime: '13:00' },
      { date: '2031-12-25', closed: true },
    ];
    const saved = await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: { operatingHours: weekly('09:00', '17:00'), dateOverrides },
      }),
    );
    assert.deepEqual(saved.schedulePolicy.dateOverrides, [dateOverrides[1], dateOverrides[0]]);
    const org = await ok(await patchOrganisation(owner, { dateOverrides }));
    assert.deepEqual(org.schedulePolicy.dateOverrides, [dateOverrides[1], dateOverrides[0]]);
  });

  test('a closed day removes that day at each level, and only that day', async () => {
    const { owner, type, resource } = await catalogue();
    const open = (d: number) => [[jan(d, '09:00'), jan(d, '17:00')]];
    // Read before each change: a cached answer must not outlive the change.
    assert.deepEqual(await day(owner, resource.id, 8), open(8));
    await ok(await patchOrganisation(owner, { dateOverrides: [{ date: '2031-01-08', closed: true }] }));
    assert.deepEqual(await day(owner, resource.id, 8), []);
    assert.deepEqual(await day(owner, resource.id, 9), open(9));
    await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: {
          operatingHours: weekly('09:00', '17:00'),
          dateOverrides: [{ date: '2031-01-09', closed: true }],
        },
      }),
    );
    assert.deepEqual(await day(owner, resource.id, 9), []);
    assert.deepEqual(await day(owner, resource.id, 10), open(10));
    await ok(
      await send(owner, 'PATCH', `/api/resources/${resource.id}`, {
        schedulePolicy: { dateOverrides: [{ date: '2031-01-10', closed: true }] },
      }),
    );
    assert.deepEqual(await day(owner, resource.id, 10), []);
    // The week around them: only the three days are gone.
    assert.deepEqual(await windows(owner, resource.id, jan(6, '00:00'), jan(13, '00:00')), [
      ...open(6),
      ...open(7),
      ...open(11),
      ...open(12),
    ]);
    // The type's own pool answer too.
    const pool = await ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/resource-types/${type.id}/availability?from=${jan(8, '00:00')}&to=${jan(11, '00:00')}`,
        headers: owner.auth,
      }),
    );
    assert.deepEqual(pool.resources[0].windows, []);
  });

  test("special hours replace that date's weekly hours, and only that date's", async () => {
    const { owner, type, resource } = await catalogue();
    await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: {
          operatingHours: weekly('09:00', '17:00', [1, 2, 3, 4, 5]),
          // A Saturday the weekly hours keep closed opens; a Wednesday opens late.
          dateOverrides: [
            { date: '2031-01-08', openTime: '12:00', closeTime: '20:00' },
            { date: '2031-01-11', openTime: '10:00', closeTime: '14:00' },
          ],
        },
      }),
    );
    assert.deepEqual(await windows(owner, resource.id, jan(7, '00:00'), jan(13, '00:00')), [
      [jan(7, '09:00'), jan(7, '17:00')],
      [jan(8, '12:00'), jan(8, '20:00')],
      [jan(9, '09:00'), jan(9, '17:00')],
      [jan(10, '09:00'), jan(10, '17:00')],
      [jan(11, '10:00'), jan(11, '14:00')],
    ]);
    // Booking judges as the answers do: 18:00 on the late day fits, 10:00 does not.
    assert.equal((await bookFromTo(owner, resource.id, jan(8, '18:00'), jan(8, '19:00'))).statusCode, 201);
    const early = await bookFromTo(owner, resource.id, jan(8, '10:00'), jan(8, '11:00'));
    assert.equal(early.statusCode, 409, early.body);
    assert.equal(early.json().error.code, 'SLOT_UNAVAILABLE');
    assert.equal((await bookFromTo(owner, resource.id, jan(11, '10:00'), jan(11, '11:00'))).statusCode, 201);
    assert.equal((await bookFromTo(owner, resource.id, jan(12, '10:00'), jan(12, '11:00'))).statusCode, 409);
  });

  test('per date the most specific scope with an override wins, over every weekly part', async () => {
    const { owner, type, resource } = await catalogue();
    await ok(
      await patchOrganisation(owner, {
        operatingHours: weekly('08:00', '18:00'),
        dateOverrides: [
          { date: '2031-01-07', closed: true },
          { date: '2031-01-08', closed: true },
          { date: '2031-01-09', openTime: '06:00', closeTime: '07:00' },
        ],
      }),
    );
    await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: {
          operatingHours: weekly('09:00', '17:00'),
          dateOverrides: [
            { date: '2031-01-08', openTime: '10:00', closeTime: '12:00' },
            { date: '2031-01-10', closed: true },
          ],
        },
      }),
    );
    await ok(
      await send(owner, 'PATCH', `/api/resources/${resource.id}`, {
        schedulePolicy: {
          operatingHours: weekly('07:00', '21:00'),
          dateOverrides: [{ date: '2031-01-09', openTime: '13:00', closeTime: '15:00' }],
        },
      }),
    );
    assert.deepEqual(await windows(owner, resource.id, jan(6, '00:00'), jan(12, '00:00')), [
      // Monday: the resource's weekly hours (no override names it).
      [jan(6, '07:00'), jan(6, '21:00')],
      // Tuesday: the organisation's holiday closes it, though the resource has weekly hours.
      // Wednesday: the type's special hours beat the organisation's holiday.
      [jan(8, '10:00'), jan(8, '12:00')],
      // Thursday: the resource's special hours beat the organisation's.
      [jan(9, '13:00'), jan(9, '15:00')],
      // Friday: the type's holiday beats the resource's weekly hours. Saturday: weekly again.
      [jan(11, '07:00'), jan(11, '21:00')],
    ]);
    const schedule = await ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/resources/${resource.id}/schedule`,
        headers: owner.auth,
      }),
    );
    assert.deepEqual(schedule.dateOverrides, [
      { date: '2031-01-07', closed: true, source: 'organisation' },
      { date: '2031-01-08', openTime: '10:00', closeTime: '12:00', source: 'resourceType' },
      { date: '2031-01-09', openTime: '13:00', closeTime: '15:00', source: 'resource' },
      { date: '2031-01-10', closed: true, source: 'resourceType' },
    ]);
    assert.equal(schedule.sources.operatingHours, 'resource');
  });

  test('on daylight-saving days the override is local time: 23 and 25 hour days', async () => {
    const { owner, type, resource } = await catalogue('Europe/Berlin');
    await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: {
          operatingHours: weekly('00:00', '24:00'),
          dateOverrides: [
            // Clocks go forward at 02:00 on 30 March 2031, back at 03:00 on 26 October.
            { date: '2031-03-30', openTime: '01:00', closeTime: '05:00' },
            { date: '2031-10-26', closed: true },
          ],
        },
      }),
    );
    const spring = await windows(owner, resource.id, '2031-03-29T12:00:00.000Z', '2031-03-31T12:00:00.000Z');
    assert.deepEqual(spring, [
      // Saturday until 24:00 CET (23:00Z); Sunday 01:00 CET to 05:00 CEST is three hours.
      ['2031-03-29T12:00:00.000Z', '2031-03-29T23:00:00.000Z'],
      ['2031-03-30T00:00:00.000Z', '2031-03-30T03:00:00.000Z'],
      // Monday from its local midnight (22:00Z, CEST).
      ['2031-03-30T22:00:00.000Z', '2031-03-31T12:00:00.000Z'],
    ]);
    const autumn = await windows(owner, resource.id, '2031-10-25T12:00:00.000Z', '2031-10-27T12:00:00.000Z');
    assert.deepEqual(autumn, [
      // The 25-hour Sunday is closed whole: Saturday ends at 22:00Z (CEST), Monday starts 23:00Z (CET).
      ['2031-10-25T12:00:00.000Z', '2031-10-25T22:00:00.000Z'],
      ['2031-10-26T23:00:00.000Z', '2031-10-27T12:00:00.000Z'],
    ]);
    const refused = await bookFromTo(
      owner,
      resource.id,
      '2031-10-26T12:00:00.000Z',
      '2031-10-26T13:00:00.000Z',
    );
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(
      (await bookFromTo(owner, resource.id, '2031-03-30T02:00:00.000Z', '2031-03-30T03:00:00.000Z'))
        .statusCode,
      201,
    );
  });

  test('a booking on a closed date is refused, through the API and the public booking page', async () => {
    const { owner, type, resource } = await catalogue();
    const organisation = await ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/organisations/${owner.organisationId}`,
        headers: owner.auth,
      }),
    );
    const attempt = () => bookFromTo(owner, resource.id, jan(8, '10:00'), jan(8, '11:00'));
    await ok(await patchOrganisation(owner, { dateOverrides: [{ date: '2031-01-08', closed: true }] }));
    const refused = await attempt();
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error.code, 'SLOT_UNAVAILABLE');
    // Its alternatives are on open days only.
    for (const alternative of refused.json().error.alternatives ?? [])
      assert.ok(!alternative.startTime.startsWith('2031-01-08'), JSON.stringify(alternative));
    const pub = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${organisation.slug}/reservations`,
      payload: {
        resourceId: resource.id,
        resourceTypeId: type.id,
        startTime: jan(8, '12:00'),
        endTime: jan(8, '13:00'),
        customer,
      },
    });
    assert.equal(pub.statusCode, 409, pub.body);
    // Reopened (the override removed), the same time books.
    await ok(await patchOrganisation(owner, { dateOverrides: [] }));
    assert.equal((await attempt()).statusCode, 201);
  });

  test('shifts: a closed date offers no slot, special hours keep the slots inside them', async () => {
    const { owner, type, resource } = await catalogue();
    const slots = [
      { startTime: '09:00', endTime: '12:00' },
      { startTime: '13:00', endTime: '17:00' },
    ];
    await ok(
      await send(owner, 'PATCH', `/api/resource-types/${type.id}`, {
        schedulePolicy: {
          availabilityMode: 'shifts',
          shiftSchedule: [1, 2, 3].map((dayOfWeek) => ({ dayOfWeek, slots })),
          dateOverrides: [
            { date: '2031-01-06', closed: true },
            { date: '2031-01-07', openTime: '08:00', closeTime: '12:30' },
          ],
        },
      }),
    );
    const r = await ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/resources/${resource.id}/availability?from=${jan(6, '00:00')}&to=${jan(9, '00:00')}`,
        headers: owner.auth,
      }),
    );
    assert.deepEqual(
      r.slots.map((s: { start: string; end: string }) => [s.start, s.end]),
      [
        [jan(7, '09:00'), jan(7, '12:00')],
        [jan(8, '09:00'), jan(8, '12:00')],
        [jan(8, '13:00'), jan(8, '17:00')],
      ],
    );
    assert.equal((await bookFromTo(owner, resource.id, jan(7, '13:00'), jan(7, '17:00'))).statusCode, 409);
    assert.equal((await bookFromTo(owner, resource.id, jan(6, '09:00'), jan(6, '12:00'))).statusCode, 409);
    assert.equal((await bookFromTo(owner, resource.id, jan(7, '09:00'), jan(7, '12:00'))).statusCode, 201);
  });
});
