import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase, registerUser } from '../../helpers/app.js';
import { at, book, bookPublicly, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';

type ToolResult = { isError?: boolean; structuredContent?: { customer?: unknown } };
type Detail = { path: string; message: string };

/**
 * The customer's language and zone (DECISIONS.md "Booking everywhere"): every booking body
 * takes `customer.locale` (en, de, fr, es) and `customer.timeZone` (an IANA zone), refuses
 * another value naming the field with nothing written, keeps both with the reservation
 * (null when not given) and answers them in its customer.
 */
describe('customer locale and time zone', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  let room: { id: number };
  let token: string;
  const slug = `locale-${process.pid}`;
  const mon = futureMonday();
  const slot = (hour: number) => ({
    resourceId: room.id,
    startTime: at(mon, hour),
    endTime: at(mon, hour + 1),
  });
  const person = (extra: Record<string, unknown> = {}) => ({
    name: 'Greta Garbo',
    email: 'greta@example.test',
    ...extra,
  });

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig({ ...MCP_TEST_ENV, PUBLIC_RATE_LIMIT_MAX: '1000' }), {
      db,
      logger: false,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { slug, timezone: 'Europe/Berlin' });
    const type = await createType(app, owner, {
      name: 'Fitting',
      recurringEnabled: true,
      waitlistEnabled: true,
    });
    room = await createResource(app, owner, { name: 'Room', resourceTypeId: type.id });
    token = expectStatus(await as(app, owner).get(`/api/resources/${room.id}/public-token`), 200).token;
    client = await agentClient(app, owner, 'reservations_operator');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const refusedPaths = (response: LightMyRequestResponse) =>
    (expectError(response, 400, 'VALIDATION_FAILED').details as Detail[]).map((d) => d.path);

  test('kept and answered on create, read and list; the zone in its tz database spelling', async () => {
    const booked = expectStatus(
      await book(app, owner, {
        ...slot(8),
        customer: person({ locale: 'de', timeZone: 'america/new_york' }),
      }),
      201,
    );
    assert.deepEqual(booked.customer, person({ locale: 'de', timeZone: 'America/New_York' }));
    const read = expectStatus(await as(app, owner).get(`/api/reservations/${booked.id}`), 200);
    assert.equal(read.customer.locale, 'de');
    assert.equal(read.customer.timeZone, 'America/New_York');
    const listed = expectStatus(await as(app, owner).get(`/api/reservations?q=${booked.reference}`), 200);
    assert.equal(listed.items[0].customer.locale, 'de');

    const plain = expectStatus(await book(app, owner, { ...slot(9), customer: person() }), 201);
    assert.deepEqual(plain.customer, person({ locale: null, timeZone: null }));
    // What a form sends for a choice left alone: not given.
    const blank = expectStatus(
      await book(app, owner, { ...slot(10), customer: person({ locale: '', timeZone: null }) }),
      201,
    );
    assert.deepEqual(blank.customer, person({ locale: null, timeZone: null }));
  });

  test('another value is 400 naming customer.locale or customer.timeZone, with nothing written', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ locale: 'it' }, 'body.customer.locale'],
      [{ locale: 'DE' }, 'body.customer.locale'],
      [{ locale: 7 }, 'body.customer.locale'],
      [{ timeZone: 'Mars/Olympus_Mons' }, 'body.customer.timeZone'],
      [{ timeZone: '+01:00' }, 'body.customer.timeZone'],
      [{ timeZone: 'x'.repeat(65) }, 'body.customer.timeZone'],
    ];
    for (const [change, path] of cases) {
      const refused = refusedPaths(await book(app, owner, { ...slot(11), customer: person(change) }));
      assert.deepEqual(refused, [path], JSON.stringify(change));
    }
    const both = refusedPaths(
      await book(app, owner, { ...slot(11), customer: person({ locale: 'xx', timeZone: 'Nowhere' }) }),
    );
    assert.deepEqual(both.sort(), ['body.customer.locale', 'body.customer.timeZone']);
    // Nothing was written: the time is still free.
    expectStatus(await book(app, owner, { ...slot(11), customer: person({ locale: 'fr' }) }), 201);
  });

  test('holds, series and the waitlist keep them; the waitlist refuses as the booking does', async () => {
    const fr = person({ locale: 'fr', timeZone: 'Europe/Paris' });
    const held = expectStatus(
      await as(app, owner).post('/api/reservations/holds', { ...slot(12), customer: fr }),
      201,
    );
    assert.deepEqual(held.customer, fr);
    const series = expectStatus(
      await book(app, owner, {
        ...slot(13),
        customer: person({ locale: 'es' }),
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
      }),
      201,
    );
    for (const occurrence of series.reservations) assert.equal(occurrence.customer.locale, 'es');
    assert.deepEqual(
      refusedPaths(
        await as(app, owner).post('/api/reservations/waitlist', {
          ...slot(12),
          customer: person({ locale: 'pt' }),
        }),
      ),
      ['body.customer.locale'],
    );
    const waiting = expectStatus(
      await as(app, owner).post('/api/reservations/waitlist', { ...slot(12), customer: fr }),
      201,
    );
    assert.deepEqual(waiting.customer, fr);
  });

  test('the booking page, the resource link and the MCP tools take them too', async () => {
    const publicBooking = await bookPublicly(app, slug, {
      ...slot(14),
      customer: person({ locale: 'de', timeZone: 'Asia/Tokyo' }),
    });
    assert.equal(expectStatus(publicBooking, 201).customer.timeZone, 'Asia/Tokyo');
    assert.deepEqual(
      refusedPaths(await bookPublicly(app, slug, { ...slot(14), customer: person({ timeZone: 'Tokyo' }) })),
      ['body.customer.timeZone'],
    );
    const publicHold = await as(app, null).post(`/api/public/organisations/${slug}/holds`, {
      ...slot(15),
      customer: person({ locale: 'fr' }),
    });
    assert.equal(expectStatus(publicHold, 201).customer.locale, 'fr');
    const { resourceId: _fixed, ...times } = slot(16);
    const byToken = await as(app, null).post(`/api/public/resources/${token}/reservations`, {
      ...times,
      customer: person({ locale: 'es', timeZone: 'America/Mexico_City' }),
    });
    assert.deepEqual(
      expectStatus(byToken, 201).customer,
      person({ locale: 'es', timeZone: 'America/Mexico_City' }),
    );

    const created = (await client.callTool({
      name: 'reservations_create',
      arguments: { ...slot(17), customer: person({ locale: 'de', timeZone: 'Europe/Vienna' }) },
    })) as ToolResult;
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.deepEqual(
      created.structuredContent?.customer,
      person({ locale: 'de', timeZone: 'Europe/Vienna' }),
    );
    const refused = (await client.callTool({
      name: 'reservations_hold',
      arguments: { ...slot(18), customer: person({ locale: 'klingon' }) },
    })) as ToolResult;
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused), /customer\.locale/);
  });

  test("the privacy export carries them with the rest of the customer's details", async () => {
    const mine = person({ email: owner.email, locale: 'fr', timeZone: 'Europe/Paris' });
    const booked = expectStatus(await book(app, owner, { ...slot(19), customer: mine }), 201);
    const exported = expectStatus(await as(app, owner).get(`${PRIVACY}/export`), 200) as {
      data: { reservations: Array<{ id: number; customerInfo: Record<string, unknown> }> };
    };
    const row = exported.data.reservations.find((r) => r.id === booked.id);
    assert.deepEqual(row?.customerInfo, { locale: 'fr', timeZone: 'Europe/Paris' });
  });

  test("the organisation's defaultLocale: en unless set, one of four, on its public page", async () => {
    const mine = expectStatus(await as(app, owner).get(`/api/organisations/${owner.organisationId}`), 200);
    assert.equal(mine.defaultLocale, 'en');
    const other = await registerUser(app, 'Zweite');
    const made = expectStatus(
      await as(app, other).post('/api/organisations', { name: 'Zweite', defaultLocale: 'de' }),
      201,
    );
    assert.equal(made.defaultLocale, 'de');
    assert.deepEqual(
      refusedPaths(
        await as(app, owner).patch(`/api/organisations/${owner.organisationId}`, { defaultLocale: 'it' }),
      ),
      ['body.defaultLocale'],
    );
    assert.deepEqual(
      refusedPaths(await as(app, owner).post('/api/organisations', { name: 'Dritte', defaultLocale: null })),
      ['body.defaultLocale'],
    );
    const changed = await as(app, owner).patch(`/api/organisations/${owner.organisationId}`, {
      defaultLocale: 'fr',
    });
    assert.equal(expectStatus(changed, 200).defaultLocale, 'fr');
    const page = expectStatus(await as(app, null).get(`/api/public/organisations/${slug}`), 200);
    assert.equal(page.organisation.defaultLocale, 'fr');
    const byToken = expectStatus(await as(app, null).get(`/api/public/resources/${token}`), 200);
    assert.equal(byToken.organisation.defaultLocale, 'fr');
    expectStatus(
      await as(app, owner).patch(`/api/organisations/${owner.organisationId}`, { defaultLocale: 'en' }),
      200,
    );
  });
});
