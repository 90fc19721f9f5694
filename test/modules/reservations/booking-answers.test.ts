import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase } from '../../helpers/app.js';
import { ANSWERS, at, book, futureMonday, NO_LOCALE, QUESTIONS } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };
type Detail = { path: string; message: string };

/**
 * Answers to a type's booking questions (DECISIONS.md "Pages people live in"): `customer.answers`
 * as {id: value}, checked by kind and `required` on every booking write, refused with the
 * answer named and nothing written, stored with the reservation and answered on it.
 */
describe('answers to booking questions', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  let room: { id: number };
  let plainRoom: { id: number };
  let token: string;
  const slug = `answers-${process.pid}`;
  const mon = futureMonday();
  const slot = (hour: number, resourceId = room.id) => ({
    resourceId,
    startTime: at(mon, hour),
    endTime: at(mon, hour + 1),
  });
  const customer = (answers?: unknown) => ({
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    ...(answers === undefined ? {} : { answers }),
  });

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig({ ...MCP_TEST_ENV, PUBLIC_RATE_LIMIT_MAX: '1000' }), {
      db,
      logger: false,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { slug, timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Asked', questions: QUESTIONS });
    room = await createResource(app, owner, { name: 'Room', resourceTypeId: type.id });
    const plain = await createType(app, owner, { name: 'Plain' });
    plainRoom = await createResource(app, owner, { name: 'Plain room', resourceTypeId: plain.id });
    token = expectStatus(await as(app, owner).get(`/api/resources/${room.id}/public-token`), 200).token;
    client = await agentClient(app, owner, 'reservations_operator');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const refusedAt = (response: LightMyRequestResponse, prefix = 'body.') => {
    const error = expectError(response, 400, 'VALIDATION_FAILED');
    return Object.fromEntries(
      (error.details as Detail[]).map((d) => [d.path.replace(prefix, ''), d.message]),
    ) as Record<string, string>;
  };

  test('stored and answered as {id: value}: texts trimmed, empty ones no answer', async () => {
    const booked = expectStatus(
      await book(app, owner, {
        ...slot(8),
        customer: customer({ ...ANSWERS, company: '  Engines  ', mobile: '' }),
      }),
      201,
    );
    const { mobile: _left, ...expected } = { ...ANSWERS, company: 'Engines' };
    assert.deepEqual(booked.customer, { ...customer(), answers: expected, ...NO_LOCALE });
    const read = expectStatus(await as(app, owner).get(`/api/reservations/${booked.id}`), 200);
    assert.deepEqual(read.customer.answers, expected);
    const listed = expectStatus(await as(app, owner).get(`/api/reservations?q=${booked.reference}`), 200);
    assert.deepEqual(listed.items[0].customer.answers, expected);

    const plain = expectStatus(
      await book(app, owner, { ...slot(8, plainRoom.id), customer: customer({}) }),
      201,
    );
    assert.deepEqual(plain.customer, { ...customer(), ...NO_LOCALE }, 'no answers, no answers key');
  });

  test('each kind refuses what it does not take, naming customer.answers.<id>', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ company: 'Two\nlines' }, 'company', /one line of at most 200/],
      [{ company: 'x'.repeat(201) }, 'company', /at most 200/],
      [{ company: true }, 'company', /must be text/],
      [{ notes: 'x'.repeat(2001) }, 'notes', /2000/],
      [{ invoiceEmail: 'not an address' }, 'invoiceEmail', /valid email/],
      [{ mobile: '1'.repeat(51) }, 'mobile', /at most 50/],
      [{ mobile: '+44\n1' }, 'mobile', /one line/],
      [{ size: 'Medium' }, 'size', /one of: Small, Large/],
      [{ size: 'large' }, 'size', /one of/],
      [{ terms: 'yes' }, 'terms', /true or false/],
      [{ terms: false }, 'terms', /must be true/],
      [{ company: '   ' }, 'company', /required/],
      [{ company: undefined }, 'company', /required/],
      [{ shoeSize: '42' }, 'shoeSize', /not a question/],
    ];
    for (const [change, id, message] of cases) {
      const answers = { ...ANSWERS, ...change };
      const refused = refusedAt(await book(app, owner, { ...slot(9), customer: customer(answers) }));
      assert.match(
        refused[`customer.answers.${id}`] ?? '',
        message,
        `${JSON.stringify(change)}: ${JSON.stringify(refused)}`,
      );
    }
    const none = refusedAt(await book(app, owner, { ...slot(9), customer: customer() }));
    assert.deepEqual(Object.keys(none).sort(), [
      'customer.answers.company',
      'customer.answers.size',
      'customer.answers.terms',
    ]);
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`q${i}`, 'x']));
    assert.match(
      refusedAt(await book(app, owner, { ...slot(9), customer: customer(many) }))['customer.answers'] ?? '',
      /at most 10/,
    );
    const plain = refusedAt(
      await book(app, owner, { ...slot(9, plainRoom.id), customer: customer({ company: 'x' }) }),
    );
    assert.deepEqual(Object.keys(plain), ['customer.answers.company']);
    // Nothing was written: the time is still free for a booking that answers.
    expectStatus(await book(app, owner, { ...slot(9), customer: customer(ANSWERS) }), 201);
  });

  test('a dry run refuses bad answers as the write does, and shows good ones', async () => {
    const refused = await as(app, owner).post('/api/reservations?dryRun=true', {
      ...slot(10),
      customer: customer({ ...ANSWERS, size: 'Huge' }),
    });
    assert.match(refusedAt(refused)['customer.answers.size'] ?? '', /one of/);
    const would = expectStatus(
      await as(app, owner).post('/api/reservations?dryRun=true', {
        ...slot(10),
        customer: customer(ANSWERS),
      }),
      200,
    );
    assert.equal(would.wouldSucceed, true);
    assert.deepEqual(would.reservation.customer.answers, ANSWERS);
  });

  test('public hold, booking and token booking take answers; the manage link shows them', async () => {
    const publicPost = (url: string, body: Record<string, unknown>) =>
      app.inject({ method: 'POST', url, payload: body });
    const refused = await publicPost(`/api/public/organisations/${slug}/holds`, {
      ...slot(11),
      customer: customer({ ...ANSWERS, terms: false }),
    });
    assert.match(refusedAt(refused)['customer.answers.terms'] ?? '', /must be true/);
    const hold = expectStatus(
      await publicPost(`/api/public/organisations/${slug}/holds`, {
        ...slot(11),
        customer: customer(ANSWERS),
      }),
      201,
    );
    assert.deepEqual(hold.customer.answers, ANSWERS);
    const confirmed = expectStatus(
      await publicPost(`/api/public/reservations/${hold.manageToken}/confirm`, {}),
      200,
    );
    assert.deepEqual(confirmed.customer.answers, ANSWERS);
    const managed = expectStatus(
      await app.inject({ method: 'GET', url: `/api/public/reservations/${hold.manageToken}` }),
      200,
    );
    assert.deepEqual(managed.customer.answers, ANSWERS);

    const booked = expectStatus(
      await publicPost(`/api/public/organisations/${slug}/reservations`, {
        ...slot(12),
        customer: customer(ANSWERS),
      }),
      201,
    );
    assert.deepEqual(booked.customer.answers, ANSWERS);
    const { resourceId: _r, ...time } = slot(13);
    const missing = await publicPost(`/api/public/resources/${token}/reservations`, {
      ...time,
      customer: customer({ company: 'Engines' }),
    });
    assert.deepEqual(Object.keys(refusedAt(missing)).sort(), [
      'customer.answers.size',
      'customer.answers.terms',
    ]);
    const byToken = expectStatus(
      await publicPost(`/api/public/resources/${token}/reservations`, {
        ...time,
        customer: customer(ANSWERS),
      }),
      201,
    );
    assert.deepEqual(byToken.customer.answers, ANSWERS);
  });

  test('MCP reservations_create and _hold check and store answers as REST does', async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<ToolResult>;
    const bad = await call('reservations_create', { ...slot(14), customer: customer({ size: 'Huge' }) });
    assert.equal(bad.isError, true);
    const error = (bad.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.match(error.message, /customer\.answers\.size: must be one of/);
    assert.match(error.message, /customer\.answers\.company: is required/);
    const made = await call('reservations_create', { ...slot(14), customer: customer(ANSWERS) });
    assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
    assert.deepEqual(
      (made.structuredContent as { customer: { answers: unknown } }).customer.answers,
      ANSWERS,
    );
    const held = await call('reservations_hold', { ...slot(15), customer: customer(ANSWERS) });
    assert.deepEqual(
      (held.structuredContent as { customer: { answers: unknown } }).customer.answers,
      ANSWERS,
    );
  });
});
