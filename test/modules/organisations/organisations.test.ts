import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { httpStatusOf } from '../../../src/http/errors.js';
import { personActor } from '../../../src/lib/actor.js';
import type { DomainError } from '../../../src/lib/errors.js';
import { assertCan } from '../../../src/tenancy/roles.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { call, expectStatus, validationDetails } from '../../helpers/http.js';
import { addWithRole, createOrganisation, createTeam, me } from '../../helpers/organisations.js';

const ORGANISATION_KEYS = [
  'address',
  'color',
  'createdAt',
  'defaultCurrency',
  'defaultLocale',
  'description',
  'email',
  'id',
  'isActive',
  'isActiveOrganisation',
  'isOwner',
  'logoUrl',
  'name',
  'phone',
  'publicBookingDescription',
  'publicBookingHeadline',
  'requireTwoFactor',
  'role',
  'slug',
  'timezone',
  'updatedAt',
];

describe('organisations', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  describe('create, read and list', () => {
    test('create answers 201 with the organisation, makes the caller OWNER and its first organisation active', async () => {
      const owner = await registerUser(t.app);
      const response = await call(t.app, owner, 'POST', '/api/organisations', {
        name: '  Acme Rentals ',
        description: 'Bikes and boats',
        address: '1 Harbour Road',
        phone: '+44 20 7946 0000',
        email: 'Desk@Acme.Example',
        slug: `acme-${owner.id}`,
        logoUrl: 'https://cdn.example.com/acme.png',
        publicBookingHeadline: 'Book a boat',
        publicBookingDescription: 'Open every day',
      });
      const body = expectStatus(response, 201);
      assert.deepEqual(Object.keys(body).sort(), ORGANISATION_KEYS);
      assert.equal(body.name, 'Acme Rentals');
      assert.equal(body.email, 'desk@acme.example');
      assert.equal(body.slug, `acme-${owner.id}`);
      assert.equal(body.role, 'OWNER');
      assert.equal(body.isOwner, true);
      assert.equal(body.isActiveOrganisation, true);
      assert.equal(body.isActive, true);
      assert.equal(body.timezone, 'UTC');
      assert.equal(body.defaultCurrency, 'usd');
      assert.equal(body.color, null);
      assert.equal('schedulePolicy' in body, false, 'schedulePolicy appears only when configured');
      assert.equal((await me(t.app, owner)).activeOrganisationId, body.id);

      const read = expectStatus(await call(t.app, owner, 'GET', `/api/organisations/${body.id}`), 200);
      assert.deepEqual(read, body);
    });

    test('a second organisation does not replace the active one', async () => {
      const owner = await registerUser(t.app);
      await t.app.services.auth.updateUserByEmail(owner.email, { plan: 'ENTERPRISE' });
      const first = await createOrganisation(t.app, owner, { name: 'First' });
      const second = await createOrganisation(t.app, owner, { name: 'Second' });
      assert.equal(first.isActiveOrganisation, true);
      assert.equal(second.isActiveOrganisation, false);
      assert.equal((await me(t.app, owner)).activeOrganisationId, first.id);
    });

    test('timezone is validated against IANA names and stored in canonical spelling', async () => {
      const owner = await registerUser(t.app);
      const created = await createOrganisation(t.app, owner, { timezone: 'europe/berlin' });
      assert.equal(created.timezone, 'Europe/Berlin');
      const bad = await call(t.app, owner, 'PATCH', `/api/organisations/${created.id}`, {
        timezone: 'Mars/Olympus',
      });
      assert.deepEqual(validationDetails(bad), [
        'body.timezone: must be an IANA time zone name, e.g. Europe/Berlin',
      ]);
    });

    test('create validates the body: name, kebab-case slug, absolute logoUrl, email, unknown fields', async () => {
      const owner = await registerUser(t.app);
      const details = validationDetails(
        await call(t.app, owner, 'POST', '/api/organisations', {
          slug: 'Not_Kebab',
          logoUrl: '/images/logo.png',
          email: 'not-an-email',
          ownerId: 1,
        }),
      );
      assert.ok(
        details.some((d) => d.startsWith('body.name:')),
        details.join('\n'),
      );
      assert.ok(
        details.some((d) => d.startsWith('body.slug: must be kebab-case')),
        details.join('\n'),
      );
      assert.ok(details.includes('body.logoUrl: must be an absolute http(s) URL'), details.join('\n'));
      assert.ok(details.includes('body.email: must be a valid email address'), details.join('\n'));
      assert.ok(details.includes('body: unknown field(s): ownerId'), details.join('\n'));

      for (const slug of ['double--hyphen', '-leading', 'trailing-', 'UPPER', 'with space', 'a'.repeat(64)]) {
        const response = await call(t.app, owner, 'POST', '/api/organisations', { name: 'X', slug });
        assert.equal(response.statusCode, 400, `slug ${slug} must be refused`);
      }
      for (const logoUrl of ['ftp://example.com/logo.png', 'example.com/logo.png']) {
        const response = await call(t.app, owner, 'POST', '/api/organisations', { name: 'X', logoUrl });
        assert.equal(response.statusCode, 400, `logoUrl ${logoUrl} must be refused`);
      }
      const empty = await call(t.app, owner, 'POST', '/api/organisations', { name: '   ' });
      assert.deepEqual(validationDetails(empty), ['body.name: must not be empty']);
      assert.equal((await me(t.app, owner)).activeOrganisationId, null, 'nothing was created');
    });

    test('a slug already taken answers 409 CONFLICT, on create and on update, archived owners included', async () => {
      const [a, b] = await Promise.all([registerUser(t.app), registerUser(t.app)]);
      const slug = `taken-${a.id}`;
      const first = await createOrganisation(t.app, a, { slug });
      expectStatus(await call(t.app, b, 'POST', '/api/organisations', { name: 'B', slug }), 409, 'CONFLICT');
      const other = await createOrganisation(t.app, b, { slug: `free-${b.id}` });
      expectStatus(
        await call(t.app, b, 'PATCH', `/api/organisations/${other.id}`, { slug }),
        409,
        'CONFLICT',
      );
      // An archived organisation keeps its slug, so restoring it can never clash.
      expectStatus(await call(t.app, a, 'DELETE', `/api/organisations/${first.id}`), 200);
      expectStatus(
        await call(t.app, b, 'PATCH', `/api/organisations/${other.id}`, { slug }),
        409,
        'CONFLICT',
      );
      // Its own slug again is no clash.
      const same = await call(t.app, b, 'PATCH', `/api/organisations/${other.id}`, { slug: `free-${b.id}` });
      expectStatus(same, 200);
    });

    test('the list is membership-aware: role, owner and active state per organisation; others never appear', async () => {
      const [alice, bob, carol] = await Promise.all([
        registerUser(t.app),
        registerUser(t.app),
        registerUser(t.app),
      ]);
      const mine = await createOrganisation(t.app, alice, { name: 'B Alice' });
      const bobs = await createOrganisation(t.app, bob, { name: 'A Bob' });
      await createOrganisation(t.app, carol, { name: 'Carol' });
      await addWithRole(t.app, bob, bobs.id, alice, 'MANAGER');

      const list = expectStatus(await call(t.app, alice, 'GET', '/api/organisations'), 200);
      assert.deepEqual(
        list.map((o: Record<string, unknown>) => [o.id, o.name, o.role, o.isOwner, o.isActiveOrganisation]),
        [
          [bobs.id, 'A Bob', 'MANAGER', false, false],
          [mine.id, 'B Alice', 'OWNER', true, true],
        ],
      );
      for (const item of list) assert.deepEqual(Object.keys(item).sort(), ORGANISATION_KEYS);
      assert.deepEqual(
        expectStatus(await call(t.app, await registerUser(t.app), 'GET', '/api/organisations'), 200),
        [],
      );
    });

    test('a user API key works as well as the login JWT', async () => {
      const owner = await registerUser(t.app);
      const org = await createOrganisation(t.app, owner);
      const key = expectStatus(
        await call(t.app, owner, 'POST', '/api/auth/api-keys', { label: 'script' }),
        201,
      ).key;
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/organisations/${org.id}`,
        headers: { 'x-api-key': key },
      });
      assert.equal(expectStatus(response, 200).id, org.id);
    });

    test('every route needs authentication', async () => {
      const routes: Array<[string, string]> = [
        ['POST', '/api/organisations'],
        ['GET', '/api/organisations'],
        ['PATCH', '/api/organisations/active'],
        ['GET', '/api/organisations/1'],
        ['PATCH', '/api/organisations/1'],
        ['DELETE', '/api/organisations/1'],
        ['GET', '/api/organisations/1/deletion-preview'],
        ['PATCH', '/api/organisations/1/billing'],
        ['PATCH', '/api/organisations/1/color'],
        ['GET', '/api/organisations/1/users/list'],
        ['POST', '/api/organisations/1/users'],
        ['POST', '/api/organisations/1/users/assign'],
        ['PATCH', '/api/organisations/1/users/2/role'],
        ['DELETE', '/api/organisations/1/users/2'],
        ['DELETE', '/api/organisations/1/users/2/remove'],
        ['DELETE', '/api/organisations/1/invitations/2'],
        ['GET', '/api/organisations/invitations'],
        ['POST', '/api/organisations/1/invitation/accept'],
        ['POST', '/api/organisations/1/invitation/decline'],
        ['GET', '/api/organisations/1/payment/status'],
        ['POST', '/api/organisations/1/payment/onboarding-link'],
        ['POST', '/api/organisations/1/payment/dashboard-link'],
        ['POST', '/api/organisations/1/payment/disconnect'],
      ];
      for (const [method, url] of routes) {
        const response = await call(t.app, null, method as 'GET', url, method === 'GET' ? undefined : {});
        expectStatus(response, 401, 'UNAUTHENTICATED');
      }
    });

    test('the routes are in the OpenAPI document with tags, summary and user security', async () => {
      const doc = expectStatus(await t.app.inject({ method: 'GET', url: '/api/openapi.json' }), 200);
      const operations = [
        ['post', '/api/organisations'],
        ['get', '/api/organisations'],
        ['patch', '/api/organisations/active'],
        ['get', '/api/organisations/{id}'],
        ['patch', '/api/organisations/{id}'],
        ['delete', '/api/organisations/{id}'],
        ['get', '/api/organisations/{id}/deletion-preview'],
        ['patch', '/api/organisations/{id}/billing'],
        ['patch', '/api/organisations/{id}/color'],
        ['get', '/api/organisations/{id}/users/list'],
        ['post', '/api/organisations/{id}/users'],
        ['post', '/api/organisations/{id}/users/assign'],
        ['patch', '/api/organisations/{id}/users/{userId}/role'],
        ['delete', '/api/organisations/{id}/users/{userId}'],
        ['delete', '/api/organisations/{id}/users/{userId}/remove'],
        ['delete', '/api/organisations/{id}/invitations/{invitationId}'],
        ['get', '/api/organisations/invitations'],
        ['post', '/api/organisations/{id}/invitation/accept'],
        ['post', '/api/organisations/{id}/invitation/decline'],
        ['get', '/api/organisations/{id}/payment/status'],
        ['post', '/api/organisations/{id}/payment/onboarding-link'],
        ['post', '/api/organisations/{id}/payment/dashboard-link'],
        ['post', '/api/organisations/{id}/payment/disconnect'],
      ];
      for (const [method, path] of operations) {
        const operation = doc.paths[path!]?.[method!];
        assert.ok(operation, `${method} ${path} is documented`);
        assert.ok(operation.tags.length > 0 && operation.summary, `${method} ${path} has tags and summary`);
        assert.ok(
          operation.security.some((s: Record<string, unknown>) => 'bearerAuth' in s),
          `${method} ${path} names its security`,
        );
      }
    });
  });

  describe('tenant isolation and roles on organisation routes', () => {
    test('a non-member gets 404 on every route, exactly as for an organisation that does not exist', async () => {
      const team = await createTeam(t.app);
      const id = team.organisationId;
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/api/organisations/${id}`],
        ['PATCH', `/api/organisations/${id}`, { name: 'Mine now' }],
        ['DELETE', `/api/organisations/${id}`],
        ['GET', `/api/organisations/${id}/deletion-preview`],
        ['PATCH', `/api/organisations/${id}/billing`, { defaultCurrency: 'eur' }],
        ['PATCH', `/api/organisations/${id}/color`, { color: '#123456' }],
        ['GET', `/api/organisations/${id}/users/list`],
        ['POST', `/api/organisations/${id}/users`, { userId: team.outsider.id }],
        ['POST', `/api/organisations/${id}/users/assign`, { userId: team.outsider.id, role: 'OWNER' }],
        ['PATCH', `/api/organisations/${id}/users/${team.member.id}/role`, { role: 'MEMBER' }],
        ['DELETE', `/api/organisations/${id}/users/${team.member.id}`],
        ['DELETE', `/api/organisations/${id}/users/${team.member.id}/remove`],
        ['DELETE', `/api/organisations/${id}/invitations/1`],
        ['PATCH', '/api/organisations/active', { organisationId: id }],
      ];
      for (const [method, url, payload] of routes) {
        const outsider = await call(t.app, team.outsider, method as 'GET', url, payload);
        const absent = await call(
          t.app,
          team.outsider,
          method as 'GET',
          url.replace(`/${id}`, '/999999'),
          payload,
        );
        expectStatus(outsider, 404, 'NOT_FOUND');
        if (url !== '/api/organisations/active') expectStatus(absent, 404, 'NOT_FOUND');
        assert.equal(outsider.json().error.message, 'Organisation not found', `${method} ${url}`);
      }
      const unchanged = expectStatus(await call(t.app, team.owner, 'GET', `/api/organisations/${id}`), 200);
      assert.equal(unchanged.name, 'Team');
      assert.equal(unchanged.color, null);
      assert.equal(unchanged.defaultCurrency, 'usd');
      assert.equal(
        expectStatus(await call(t.app, team.owner, 'GET', `/api/organisations/${id}/users/list`), 200).length,
        4,
      );
    });

    test('every member reads the organisation with their own role', async () => {
      const team = await createTeam(t.app);
      for (const [user, role] of [
        [team.owner, 'OWNER'],
        [team.admin, 'ADMIN'],
        [team.manager, 'MANAGER'],
        [team.member, 'MEMBER'],
      ] as const) {
        const body = expectStatus(
          await call(t.app, user, 'GET', `/api/organisations/${team.organisationId}`),
          200,
        );
        assert.equal(body.role, role);
        assert.equal(body.isOwner, role === 'OWNER');
      }
    });

    test('profile update: OWNER and ADMIN may, MANAGER and MEMBER get 403', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}`;
      const byOwner = expectStatus(
        await call(t.app, team.owner, 'PATCH', url, {
          name: 'Renamed',
          description: 'Described',
          phone: '+1 555 0100',
          timezone: 'America/New_York',
        }),
        200,
      );
      assert.equal(byOwner.name, 'Renamed');
      assert.equal(byOwner.timezone, 'America/New_York');
      const byAdmin = expectStatus(
        await call(t.app, team.admin, 'PATCH', url, { description: null, publicBookingHeadline: 'Welcome' }),
        200,
      );
      assert.equal(byAdmin.description, null, 'null clears a field');
      assert.equal(byAdmin.phone, '+1 555 0100', 'fields not sent are kept');
      assert.equal(byAdmin.role, 'ADMIN');
      assert.ok(byAdmin.updatedAt >= byOwner.updatedAt);
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'PATCH', url, { name: 'Nope' }), 403, 'FORBIDDEN');
      }
      assert.equal(expectStatus(await call(t.app, team.member, 'GET', url), 200).name, 'Renamed');
      expectStatus(await call(t.app, team.owner, 'PATCH', url, { isOwner: true }), 400, 'VALIDATION_FAILED');
      expectStatus(
        await call(t.app, team.owner, 'PATCH', url, { defaultCurrency: 'eur' }),
        400,
        'VALIDATION_FAILED',
      );
    });

    test('scheduling defaults are stored, returned when configured, and cleared with null', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}`;
      const schedulePolicy = {
        availabilityMode: 'shifts',
        operatingHours: [
          { dayOfWeek: 1, openTime: '09:00', closeTime: '17:30' },
          { dayOfWeek: 6, openTime: '10:00', closeTime: '24:00', isActive: false },
        ],
        shiftSchedule: [
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '12:00', endTime: '15:00' },
              { startTime: '09:00', endTime: '12:00' },
            ],
          },
          { dayOfWeek: 0, slots: [] },
        ],
      };
      const updated = expectStatus(await call(t.app, team.admin, 'PATCH', url, { schedulePolicy }), 200);
      const stored = {
        ...schedulePolicy,
        operatingHours: [
          { dayOfWeek: 1, openTime: '09:00', closeTime: '17:30', isActive: true },
          { dayOfWeek: 6, openTime: '10:00', closeTime: '24:00', isActive: false },
        ],
      };
      assert.deepEqual(updated.schedulePolicy, stored);
      assert.deepEqual(expectStatus(await call(t.app, team.member, 'GET', url), 200).schedulePolicy, stored);
      const list = expectStatus(await call(t.app, team.owner, 'GET', '/api/organisations'), 200);
      assert.deepEqual(list.find((o: { id: number }) => o.id === team.organisationId).schedulePolicy, stored);

      // The tenant gate hands the stored policy to the catalogue, in the same query as the role.
      const tenantOf = (userId: number) => t.app.services.organisations.requireTenant(personActor(userId));
      assert.deepEqual(await tenantOf(team.owner.id), {
        organisationId: team.organisationId,
        role: 'OWNER',
        timezone: 'UTC',
        schedulePolicy: stored,
        defaultCurrency: 'usd',
        requireTwoFactor: false,
        memberHasTwoFactor: false,
      });

      // A partial policy replaces the whole policy; sections are not merged.
      const partial = expectStatus(
        await call(t.app, team.owner, 'PATCH', url, { schedulePolicy: { availabilityMode: 'continuous' } }),
        200,
      );
      assert.deepEqual(partial.schedulePolicy, { availabilityMode: 'continuous' });
      const cleared = expectStatus(
        await call(t.app, team.owner, 'PATCH', url, { schedulePolicy: null }),
        200,
      );
      assert.equal('schedulePolicy' in cleared, false);
      assert.equal((await tenantOf(team.member.id)).schedulePolicy, null);
      expectStatus(
        await call(t.app, team.manager, 'PATCH', url, { schedulePolicy: { availabilityMode: 'shifts' } }),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('schedule validation', () => {
    let owner: Awaited<ReturnType<typeof registerUser>>;
    let url: string;
    before(async () => {
      owner = await registerUser(t.app);
      url = `/api/organisations/${(await createOrganisation(t.app, owner)).id}`;
    });
    const patch = (schedulePolicy: unknown) => call(t.app, owner, 'PATCH', url, { schedulePolicy });
    const hours = (...days: unknown[]) => ({ operatingHours: days });
    const shifts = (...days: unknown[]) => ({ shiftSchedule: days });

    test('dayOfWeek must be an integer 0..6', async () => {
      for (const dayOfWeek of [-1, 7, 1.5, '1']) {
        const details = validationDetails(
          await patch(hours({ dayOfWeek, openTime: '09:00', closeTime: '10:00' })),
        );
        assert.equal(details.length, 1, details.join('\n'));
        assert.match(details[0]!, /^body\.schedulePolicy\.operatingHours\.0\.dayOfWeek: /);
      }
      const details = validationDetails(await patch(shifts({ dayOfWeek: 9, slots: [] })));
      assert.deepEqual(details, [
        'body.schedulePolicy.shiftSchedule.0.dayOfWeek: must be 0 (Sunday) to 6 (Saturday)',
      ]);
    });

    test('a weekday appears at most once per weekly array', async () => {
      const twiceOpen = await patch(
        hours(
          { dayOfWeek: 2, openTime: '09:00', closeTime: '12:00' },
          { dayOfWeek: 3, openTime: '09:00', closeTime: '12:00' },
          { dayOfWeek: 2, openTime: '13:00', closeTime: '17:00' },
        ),
      );
      assert.deepEqual(validationDetails(twiceOpen), [
        'body.schedulePolicy.operatingHours.2.dayOfWeek: dayOfWeek 2 appears more than once (first at index 0)',
      ]);
      const twiceShift = await patch(shifts({ dayOfWeek: 5, slots: [] }, { dayOfWeek: 5, slots: [] }));
      assert.deepEqual(validationDetails(twiceShift), [
        'body.schedulePolicy.shiftSchedule.1.dayOfWeek: dayOfWeek 5 appears more than once (first at index 0)',
      ]);
    });

    test('times are HH:mm on a 24-hour clock; 24:00 only as an end', async () => {
      const cases: Array<[unknown, string]> = [
        [hours({ dayOfWeek: 1, openTime: '9:00', closeTime: '10:00' }), 'operatingHours.0.openTime'],
        [hours({ dayOfWeek: 1, openTime: '09:00', closeTime: '10:60' }), 'operatingHours.0.closeTime'],
        [hours({ dayOfWeek: 1, openTime: '24:00', closeTime: '24:00' }), 'operatingHours.0.openTime'],
        [hours({ dayOfWeek: 1, openTime: '09:00', closeTime: '24:01' }), 'operatingHours.0.closeTime'],
        [hours({ dayOfWeek: 1, openTime: '09:00:00', closeTime: '10:00' }), 'operatingHours.0.openTime'],
        [
          shifts({ dayOfWeek: 1, slots: [{ startTime: '25:00', endTime: '26:00' }] }),
          'shiftSchedule.0.slots.0.startTime',
        ],
        [
          shifts({ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '9pm' }] }),
          'shiftSchedule.0.slots.0.endTime',
        ],
      ];
      for (const [policy, path] of cases) {
        const details = validationDetails(await patch(policy));
        assert.ok(
          details.some((d) => d.startsWith(`body.schedulePolicy.${path}: must be a time HH:mm`)),
          `${JSON.stringify(policy)}: ${details.join('; ')}`,
        );
      }
      const midnight = await patch(hours({ dayOfWeek: 0, openTime: '00:00', closeTime: '24:00' }));
      expectStatus(midnight, 200);
    });

    test('the end must be after the start', async () => {
      assert.deepEqual(
        validationDetails(await patch(hours({ dayOfWeek: 1, openTime: '17:00', closeTime: '09:00' }))),
        ['body.schedulePolicy.operatingHours.0.closeTime: closeTime 09:00 must be after openTime 17:00'],
      );
      assert.deepEqual(
        validationDetails(await patch(hours({ dayOfWeek: 1, openTime: '09:00', closeTime: '09:00' }))),
        ['body.schedulePolicy.operatingHours.0.closeTime: closeTime 09:00 must be after openTime 09:00'],
      );
      assert.deepEqual(
        validationDetails(
          await patch(shifts({ dayOfWeek: 3, slots: [{ startTime: '14:00', endTime: '13:59' }] })),
        ),
        ['body.schedulePolicy.shiftSchedule.0.slots.0.endTime: endTime 13:59 must be after startTime 14:00'],
      );
    });

    test('shift slots of one day never overlap; touching slots are fine', async () => {
      const overlapping = await patch(
        shifts({
          dayOfWeek: 4,
          slots: [
            { startTime: '13:00', endTime: '17:00' },
            { startTime: '08:00', endTime: '12:00' },
            { startTime: '11:30', endTime: '13:00' },
          ],
        }),
      );
      assert.deepEqual(validationDetails(overlapping), [
        'body.schedulePolicy.shiftSchedule.0.slots.2: slot 11:30-13:00 overlaps slot 1 (08:00-12:00) on dayOfWeek 4',
      ]);
      const contained = await patch(
        shifts({
          dayOfWeek: 2,
          slots: [
            { startTime: '08:00', endTime: '18:00' },
            { startTime: '10:00', endTime: '11:00' },
          ],
        }),
      );
      assert.deepEqual(validationDetails(contained), [
        'body.schedulePolicy.shiftSchedule.0.slots.1: slot 10:00-11:00 overlaps slot 0 (08:00-18:00) on dayOfWeek 2',
      ]);
      const sameSlotOtherDays = await patch(
        shifts(
          {
            dayOfWeek: 1,
            slots: [
              { startTime: '08:00', endTime: '12:00' },
              { startTime: '12:00', endTime: '24:00' },
            ],
          },
          { dayOfWeek: 2, slots: [{ startTime: '08:00', endTime: '12:00' }] },
        ),
      );
      expectStatus(sameSlotOtherDays, 200);
    });

    test('unknown fields and modes are refused, and a refused policy leaves the stored one untouched', async () => {
      const good = {
        availabilityMode: 'continuous',
        operatingHours: [{ dayOfWeek: 1, openTime: '08:00', closeTime: '16:00' }],
      };
      expectStatus(await patch(good), 200);
      assert.deepEqual(validationDetails(await patch({ availabilityMode: 'always' })).length, 1);
      assert.deepEqual(validationDetails(await patch({ weekends: true })), [
        'body.schedulePolicy: unknown field(s): weekends',
      ]);
      assert.deepEqual(
        validationDetails(
          await patch(hours({ dayOfWeek: 1, openTime: '08:00', closeTime: '16:00', note: 'x' })),
        ),
        ['body.schedulePolicy.operatingHours.0: unknown field(s): note'],
      );
      const stored = expectStatus(await call(t.app, owner, 'GET', url), 200).schedulePolicy;
      assert.deepEqual(stored.operatingHours, [
        { dayOfWeek: 1, openTime: '08:00', closeTime: '16:00', isActive: true },
      ]);
    });
  });

  describe('plan limit', () => {
    test('STORE owns one active organisation: the second create answers 403 PLAN_LIMIT_REACHED; archiving frees the place', async () => {
      const owner = await registerUser(t.app);
      const first = await createOrganisation(t.app, owner, { name: 'One' });
      const refused = await call(t.app, owner, 'POST', '/api/organisations', { name: 'Two' });
      expectStatus(refused, 403, 'PLAN_LIMIT_REACHED');
      assert.match(refused.json().error.message, /STORE allows 1 owned active organisation/);
      expectStatus(await call(t.app, owner, 'DELETE', `/api/organisations/${first.id}`), 200);
      const second = await createOrganisation(t.app, owner, { name: 'Two' });
      assert.equal(
        second.isActiveOrganisation,
        true,
        'archiving cleared the active one, so the new one is active',
      );
      // Restoring the archived one would exceed the plan again.
      expectStatus(
        await call(t.app, owner, 'PATCH', `/api/organisations/${first.id}`, { isActive: true }),
        403,
        'PLAN_LIMIT_REACHED',
      );
    });

    test('ENTERPRISE owns up to five; membership without ownership does not count', async () => {
      const owner = await registerUser(t.app);
      await t.app.services.auth.updateUserByEmail(owner.email, { plan: 'ENTERPRISE' });
      const other = await registerUser(t.app);
      const foreign = await createOrganisation(t.app, other);
      await addWithRole(t.app, other, foreign.id, owner, 'ADMIN');
      for (let n = 1; n <= 5; n += 1) await createOrganisation(t.app, owner, { name: `Org ${n}` });
      const sixth = await call(t.app, owner, 'POST', '/api/organisations', { name: 'Org 6' });
      expectStatus(sixth, 403, 'PLAN_LIMIT_REACHED');
      assert.match(sixth.json().error.message, /ENTERPRISE allows 5 owned active organisations/);
      const list = expectStatus(await call(t.app, owner, 'GET', '/api/organisations'), 200);
      assert.equal(list.filter((o: { isOwner: boolean }) => o.isOwner).length, 5);
      assert.equal(list.length, 6);
    });

    test('being made OWNER of another organisation counts as owning it', async () => {
      const [owner, promoted] = await Promise.all([registerUser(t.app), registerUser(t.app)]);
      const org = await createOrganisation(t.app, owner);
      await addWithRole(t.app, owner, org.id, promoted, 'OWNER');
      expectStatus(
        await call(t.app, promoted, 'POST', '/api/organisations', { name: 'Own' }),
        403,
        'PLAN_LIMIT_REACHED',
      );
    });

    test('two concurrent creates of a STORE user: exactly one passes', async () => {
      const owner = await registerUser(t.app);
      const responses = await Promise.all(
        [1, 2].map((n) => call(t.app, owner, 'POST', '/api/organisations', { name: `Race ${n}` })),
      );
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 403]);
      const list = expectStatus(await call(t.app, owner, 'GET', '/api/organisations'), 200);
      assert.equal(list.length, 1);
    });

    test('five concurrent creates of an ENTERPRISE user with three owned: exactly two pass', async () => {
      const owner = await registerUser(t.app);
      await t.app.services.auth.updateUserByEmail(owner.email, { plan: 'ENTERPRISE' });
      for (let n = 1; n <= 3; n += 1) await createOrganisation(t.app, owner, { name: `Have ${n}` });
      const responses = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => call(t.app, owner, 'POST', '/api/organisations', { name: `Race ${n}` })),
      );
      const statuses = responses.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [201, 201, 403, 403, 403]);
      assert.equal(expectStatus(await call(t.app, owner, 'GET', '/api/organisations'), 200).length, 5);
    });
  });

  describe('active organisation', () => {
    test('PATCH /active switches to an organisation the caller belongs to', async () => {
      const team = await createTeam(t.app);
      const own = await createOrganisation(t.app, team.member, { name: 'Own' });
      assert.equal((await me(t.app, team.member)).activeOrganisationId, team.organisationId);
      const switched = expectStatus(
        await call(t.app, team.member, 'PATCH', '/api/organisations/active', { organisationId: own.id }),
        200,
      );
      assert.equal(switched.id, own.id);
      assert.equal(switched.isActiveOrganisation, true);
      assert.equal((await me(t.app, team.member)).activeOrganisationId, own.id);
      const list = expectStatus(await call(t.app, team.member, 'GET', '/api/organisations'), 200);
      assert.deepEqual(
        list.map((o: { id: number; isActiveOrganisation: boolean }) => [o.id, o.isActiveOrganisation]).sort(),
        [
          [team.organisationId, false],
          [own.id, true],
        ].sort(),
      );
      const tenant = await t.app.services.organisations.requireTenant(personActor(team.member.id));
      assert.deepEqual(tenant, {
        organisationId: own.id,
        role: 'OWNER',
        timezone: 'UTC',
        schedulePolicy: null,
        defaultCurrency: 'usd',
        requireTwoFactor: false,
        memberHasTwoFactor: false,
      });
    });

    test('organisationId must be a positive integer; an organisation the caller is not in answers 404', async () => {
      const team = await createTeam(t.app);
      for (const organisationId of ['1', 0, -3, 1.5, null]) {
        const details = validationDetails(
          await call(t.app, team.member, 'PATCH', '/api/organisations/active', { organisationId }),
        );
        assert.ok(
          details.every((d) => d.startsWith('body.organisationId:')),
          details.join('; '),
        );
      }
      expectStatus(
        await call(t.app, team.member, 'PATCH', '/api/organisations/active', {}),
        400,
        'VALIDATION_FAILED',
      );
      expectStatus(
        await call(t.app, team.member, 'PATCH', '/api/organisations/active', {
          organisationId: team.organisationId,
          x: 1,
        }),
        400,
        'VALIDATION_FAILED',
      );
      const foreign = await createOrganisation(t.app, team.outsider);
      expectStatus(
        await call(t.app, team.member, 'PATCH', '/api/organisations/active', { organisationId: foreign.id }),
        404,
        'NOT_FOUND',
      );
      assert.equal((await me(t.app, team.member)).activeOrganisationId, team.organisationId);
    });

    test('requireTenant answers 409 NO_ACTIVE_ORGANISATION without one; the role matrix checks roles', async () => {
      const user = await registerUser(t.app);
      const { organisations } = t.app.services;
      await assert.rejects(organisations.requireTenant(personActor(user.id)), (error: DomainError) => {
        assert.equal(httpStatusOf(error.code), 409);
        assert.equal(error.code, 'NO_ACTIVE_ORGANISATION');
        return true;
      });
      const team = await createTeam(t.app, { timezone: 'Asia/Tokyo' });
      const manager = personActor(team.manager.id);
      const tenant = await organisations.requireTenant(manager, { can: 'writeCatalogue' });
      assert.deepEqual(tenant, {
        organisationId: team.organisationId,
        role: 'MANAGER',
        timezone: 'Asia/Tokyo',
        schedulePolicy: null,
        defaultCurrency: 'usd',
        requireTwoFactor: false,
        memberHasTwoFactor: false,
      });
      const forbidden = (error: DomainError) =>
        httpStatusOf(error.code) === 403 && error.code === 'FORBIDDEN';
      await assert.rejects(organisations.requireTenant(manager, { can: 'updateOrganisation' }), forbidden);
      await assert.rejects(
        organisations.requireMembership(manager, team.organisationId, { can: 'manageBilling' }),
        forbidden,
      );
      assertCan('MANAGER', 'writeCatalogue');
      assert.throws(() => assertCan('MANAGER', 'updateOrganisation'), forbidden);
    });
  });

  describe('archive', () => {
    test('DELETE archives (OWNER only): gone from every list, cleared as active, and no longer activatable', async () => {
      const team = await createTeam(t.app);
      const id = team.organisationId;
      const url = `/api/organisations/${id}`;
      for (const user of [team.admin, team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'DELETE', url), 403, 'FORBIDDEN');
      }
      // The owner's API key: its read takes the active organisation along, as a login's does.
      const apiKey = expectStatus(
        await call(t.app, team.owner, 'POST', '/api/auth/api-keys', { label: 'k' }),
        201,
      ).key as string;
      const byKey = { ...team.owner, auth: { 'x-api-key': apiKey } } as unknown as SignedInUser;
      for (const user of [team.owner, team.member, byKey]) {
        expectStatus(await call(t.app, user, 'GET', '/api/resources'), 200);
      }
      const archived = expectStatus(await call(t.app, team.owner, 'DELETE', url), 200);
      assert.equal(archived.isActive, false);
      assert.equal(archived.isActiveOrganisation, false);

      // The very next request of each, by login or by key, has none.
      for (const user of [team.owner, team.member, byKey]) {
        expectStatus(await call(t.app, user, 'GET', '/api/resources'), 409, 'NO_ACTIVE_ORGANISATION');
      }
      for (const user of [team.owner, team.admin, team.manager, team.member]) {
        assert.equal((await me(t.app, user)).activeOrganisationId, null);
        assert.deepEqual(expectStatus(await call(t.app, user, 'GET', '/api/organisations'), 200), []);
        expectStatus(
          await call(t.app, user, 'PATCH', '/api/organisations/active', { organisationId: id }),
          404,
          'NOT_FOUND',
        );
        await assert.rejects(
          t.app.services.organisations.requireTenant(personActor(user.id)),
          (error: DomainError) => error.code === 'NO_ACTIVE_ORGANISATION',
        );
      }
      // Other members no longer reach it; the OWNER still reads it.
      for (const user of [team.admin, team.member]) {
        expectStatus(await call(t.app, user, 'GET', url), 404, 'NOT_FOUND');
        expectStatus(await call(t.app, user, 'GET', `${url}/users/list`), 404, 'NOT_FOUND');
      }
      const ownerView = expectStatus(await call(t.app, team.owner, 'GET', url), 200);
      assert.equal(ownerView.isActive, false);
      // Not hard-deleted, and a repeat DELETE is harmless.
      assert.equal(expectStatus(await call(t.app, team.owner, 'DELETE', url), 200).isActive, false);
      expectStatus(await call(t.app, team.owner, 'GET', `${url}/users/list`), 404, 'NOT_FOUND');
      expectStatus(await call(t.app, team.owner, 'PATCH', url, { name: 'Edit' }), 409, 'CONFLICT');
    });

    test('PATCH isActive false archives like DELETE (OWNER only); isActive true restores it', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}`;
      expectStatus(await call(t.app, team.admin, 'PATCH', url, { isActive: false }), 403, 'FORBIDDEN');
      // Sending the unchanged state is no state change, so an ADMIN may include it.
      expectStatus(await call(t.app, team.admin, 'PATCH', url, { isActive: true, name: 'Same' }), 200);
      const archived = expectStatus(await call(t.app, team.owner, 'PATCH', url, { isActive: false }), 200);
      assert.equal(archived.isActive, false);
      assert.equal((await me(t.app, team.member)).activeOrganisationId, null);
      expectStatus(await call(t.app, team.admin, 'PATCH', url, { isActive: true }), 404, 'NOT_FOUND');
      const restored = expectStatus(
        await call(t.app, team.owner, 'PATCH', url, { isActive: true, name: 'Back' }),
        200,
      );
      assert.equal(restored.isActive, true);
      assert.equal(restored.name, 'Back');
      const list = expectStatus(await call(t.app, team.member, 'GET', '/api/organisations'), 200);
      assert.deepEqual(
        list.map((o: { id: number }) => o.id),
        [team.organisationId],
      );
      // Restoring does not silently make it anyone's active organisation again.
      assert.equal((await me(t.app, team.member)).activeOrganisationId, null);
      expectStatus(
        await call(t.app, team.member, 'PATCH', '/api/organisations/active', {
          organisationId: team.organisationId,
        }),
        200,
      );
    });

    test('archiving clears only that organisation as active', async () => {
      const [owner, member] = await Promise.all([registerUser(t.app), registerUser(t.app)]);
      await t.app.services.auth.updateUserByEmail(owner.email, { plan: 'ENTERPRISE' });
      const keep = await createOrganisation(t.app, owner, { name: 'Keep' });
      const drop = await createOrganisation(t.app, owner, { name: 'Drop' });
      await addWithRole(t.app, owner, drop.id, member, 'MEMBER');
      assert.equal((await me(t.app, member)).activeOrganisationId, drop.id);
      expectStatus(await call(t.app, owner, 'DELETE', `/api/organisations/${drop.id}`), 200);
      assert.equal((await me(t.app, owner)).activeOrganisationId, keep.id);
      assert.equal((await me(t.app, member)).activeOrganisationId, null);
    });
  });

  describe('billing, colour and deletion preview', () => {
    test('billing sets defaultCurrency lowercase, only supported currencies; OWNER and ADMIN only', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/billing`;
      assert.equal(
        expectStatus(await call(t.app, team.owner, 'PATCH', url, { defaultCurrency: 'EUR' }), 200)
          .defaultCurrency,
        'eur',
      );
      assert.equal(
        expectStatus(await call(t.app, team.admin, 'PATCH', url, { defaultCurrency: 'gbp' }), 200)
          .defaultCurrency,
        'gbp',
      );
      assert.equal(expectStatus(await call(t.app, team.admin, 'PATCH', url, {}), 200).defaultCurrency, 'gbp');
      assert.deepEqual(
        validationDetails(await call(t.app, team.owner, 'PATCH', url, { defaultCurrency: 'XYZ' })),
        ['body.defaultCurrency: is not a currency the payment provider supports'],
      );
      for (const defaultCurrency of ['eu', 'euro', 'e1r', 978]) {
        expectStatus(
          await call(t.app, team.owner, 'PATCH', url, { defaultCurrency }),
          400,
          'VALIDATION_FAILED',
        );
      }
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'PATCH', url, { defaultCurrency: 'usd' }), 403, 'FORBIDDEN');
      }
      const read = expectStatus(
        await call(t.app, team.member, 'GET', `/api/organisations/${team.organisationId}`),
        200,
      );
      assert.equal(read.defaultCurrency, 'gbp');
    });

    test('colour is set by OWNER and ADMIN, normalised lowercase, with or without the cascade', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/color`;
      const set = expectStatus(await call(t.app, team.owner, 'PATCH', url, { color: '#AABBCC' }), 200);
      assert.equal(set.color, '#aabbcc');
      const cascaded = expectStatus(
        await call(t.app, team.admin, 'PATCH', url, { color: '#F0a', cascadeToResourceTypes: true }),
        200,
      );
      assert.equal(cascaded.color, '#f0a');
      for (const body of [
        { color: 'red' },
        { color: '#12345' },
        {},
        { color: '#123456', cascadeToResourceTypes: 'yes' },
      ]) {
        expectStatus(await call(t.app, team.owner, 'PATCH', url, body), 400, 'VALIDATION_FAILED');
      }
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'PATCH', url, { color: '#000000' }), 403, 'FORBIDDEN');
      }
      assert.equal(
        expectStatus(await call(t.app, team.member, 'GET', `/api/organisations/${team.organisationId}`), 200)
          .color,
        '#f0a',
      );
    });

    test('deletion preview counts what archiving takes out of service; OWNER and ADMIN only', async () => {
      const team = await createTeam(t.app);
      const url = `/api/organisations/${team.organisationId}/deletion-preview`;
      const expected = {
        organisationId: team.organisationId,
        members: 4,
        resourceTypes: 0,
        resources: 0,
        futureReservations: 0,
      };
      assert.deepEqual(expectStatus(await call(t.app, team.owner, 'GET', url), 200), expected);
      assert.deepEqual(expectStatus(await call(t.app, team.admin, 'GET', url), 200), expected);
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, 'GET', url), 403, 'FORBIDDEN');
      }
      expectStatus(
        await call(
          t.app,
          team.owner,
          'DELETE',
          `/api/organisations/${team.organisationId}/users/${team.member.id}`,
        ),
        204,
      );
      assert.equal(expectStatus(await call(t.app, team.owner, 'GET', url), 200).members, 3);
    });
  });
});
