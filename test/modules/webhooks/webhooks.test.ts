import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, createReservation, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { expectError, expectStatus } from '../../helpers/http.js';
import {
  memberWithRole,
  type OrgOwner,
  ownerWithOrganisation,
  withApiKey,
} from '../../helpers/organisations.js';
import { type Receiver, startReceiver, verified, webhooksOf } from './helpers.js';

const DAY = 86_400_000;

describe('webhooks', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let receiver: Receiver;
  let hooks: ReturnType<typeof webhooksOf>;
  let room: { id: number };
  const mon = futureMonday();
  let slots = 0;
  // Each call books the next free hour of the room (eight a day): no two of a test collide.
  const bookNext = async (): Promise<{ id: number }> => {
    const day = new Date(mon.getTime() + Math.floor(slots / 8) * DAY);
    const minutes = (9 + (slots % 8)) * 60;
    slots += 1;
    return createReservation(t.app, owner, {
      resourceId: room.id,
      startTime: at(day, 0, minutes),
      endTime: at(day, 0, minutes + 60),
    });
  };
  const service = () => t.app.services.webhooks;
  /** The endpoint's only (newest) delivery. */
  const lastDelivery = async (webhookId: number) =>
    (expectStatus(await hooks.deliveries(webhookId), 200).items as Array<Record<string, unknown>>)[0]!;

  before(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    // An API key: the fake clock runs days past a login token's life.
    owner = await withApiKey(t.app, owner);
    const type = await createType(t.app, owner, { name: 'Room' });
    room = await createResource(t.app, owner, { name: 'Room 1', resourceTypeId: type.id });
    receiver = await startReceiver();
    hooks = webhooksOf(t.app, owner, owner.organisationId);
  });
  after(async () => {
    mock.timers.reset();
    await receiver.close();
    await t.close();
  });
  afterEach(async () => {
    mock.timers.reset();
    receiver.behave((_request, response) => response.writeHead(204).end());
    // Nothing of one test is left for the next: endpoints gone, the dispatcher past every event.
    for (const hook of expectStatus(await hooks.list(), 200).items) await hooks.delete(hook.id);
    await service().dispatch();
    receiver.received.length = 0;
  });

  test('create answers the secret once; list, get, patch and delete manage the endpoint', async () => {
    const created = await hooks.created({
      url: receiver.url,
      events: ['reservation.created', 'reservation.cancelled', 'reservation.created'],
      description: 'Shop floor',
    });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      { ...created, id: 0, secret: '', createdAt: '', updatedAt: '' },
      {
        id: 0,
        url: receiver.url,
        events: ['reservation.created', 'reservation.cancelled'],
        description: 'Shop floor',
        status: 'active',
        createdAt: '',
        updatedAt: '',
        disabledAt: null,
        secret: '',
      },
    );
    const got = expectStatus(await hooks.get(created.id), 200);
    assert.equal(got.secret, undefined, 'never answered again');
    const listed = expectStatus(await hooks.list(), 200).items;
    assert.deepEqual(
      listed.map((hook: { id: number }) => hook.id),
      [created.id],
    );
    assert.equal(listed[0].secret, undefined);
    const stored = await t.db.kysely
      .selectFrom('webhookEndpoints')
      .select('secretSealed')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.ok(!stored.secretSealed.includes(created.secret.slice(6)), 'sealed at rest');

    const patched = expectStatus(
      await hooks.patch(created.id, {
        status: 'paused',
        url: `${receiver.url}/v2`,
        events: ['payment.succeeded'],
        description: null,
      }),
      200,
    );
    assert.equal(patched.status, 'paused');
    assert.equal(patched.url, `${receiver.url}/v2`);
    assert.deepEqual(patched.events, ['payment.succeeded']);
    assert.equal(patched.description, null);
    expectError(await hooks.patch(created.id, { status: 'disabled' }), 400, 'VALIDATION_FAILED');
    expectError(await hooks.patch(created.id, {}), 400, 'VALIDATION_FAILED');

    assert.equal((await hooks.delete(created.id)).statusCode, 204);
    expectError(await hooks.get(created.id), 404, 'NOT_FOUND');
    expectError(await hooks.delete(created.id), 404, 'NOT_FOUND');
  });

  test('only OWNER and ADMIN manage webhooks; another organisation answers 404', async () => {
    const created = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    const admin = await memberWithRole(t.app, owner, 'ADMIN');
    expectStatus(await webhooksOf(t.app, admin, owner.organisationId).get(created.id), 200);
    for (const role of ['MANAGER', 'MEMBER'] as const) {
      const member = await memberWithRole(t.app, owner, role);
      const theirs = webhooksOf(t.app, member, owner.organisationId);
      expectError(await theirs.list(), 403, 'FORBIDDEN');
      expectError(await theirs.rotate(created.id), 403, 'FORBIDDEN');
    }
    const stranger = await ownerWithOrganisation(t.app);
    const foreign = webhooksOf(t.app, stranger, owner.organisationId);
    expectError(await foreign.get(created.id), 404, 'NOT_FOUND');
    expectError(
      await foreign.create({ url: receiver.url, events: ['reservation.created'] }),
      404,
      'NOT_FOUND',
    );
    // Their own organisation does not reach this endpoint either.
    expectError(await webhooksOf(t.app, stranger, stranger.organisationId).get(created.id), 404, 'NOT_FOUND');
  });

  test('a test ping reaches only that endpoint, signed; rotating the secret retires the old one', async () => {
    const first = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    await hooks.created({ url: `${receiver.url}/other`, events: ['reservation.created'] });
    const queued = expectStatus(await hooks.test(first.id), 202);
    assert.equal(queued.eventType, 'webhook.test');
    assert.equal(queued.status, 'pending');
    await t.app.jobs.idle();
    assert.equal(receiver.received.length, 1);
    const ping = receiver.received[0]!;
    assert.equal(ping.headers['webhook-id'], queued.eventId);
    assert.match(ping.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    const event = verified(first.secret, ping);
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(event.data, { webhookId: first.id });
    const logged = await lastDelivery(first.id);
    assert.deepEqual(
      {
        status: logged.status,
        attempts: logged.attempts,
        code: logged.lastStatusCode,
        next: logged.nextAttemptAt,
      },
      { status: 'succeeded', attempts: 1, code: 204, next: null },
    );

    const rotated = expectStatus(await hooks.rotate(first.id), 200);
    assert.notEqual(rotated.secret, first.secret);
    expectStatus(await hooks.test(first.id), 202);
    await t.app.jobs.idle();
    const after = receiver.received[1]!;
    assert.equal(verified(rotated.secret, after).type, 'webhook.test');
    assert.throws(() => verified(first.secret, after), /No matching signature found/);
  });

  test('a booking is delivered once to each subscribed endpoint of its organisation, with its event id', async () => {
    const subscribed = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    const other = await hooks.created({
      url: `${receiver.url}/cancel-only`,
      events: ['reservation.cancelled'],
    });
    const paused = await hooks.created({ url: `${receiver.url}/paused`, events: ['reservation.created'] });
    expectStatus(await hooks.patch(paused.id, { status: 'paused' }), 200);
    const stranger = await ownerWithOrganisation(t.app);
    await webhooksOf(t.app, stranger, stranger.organisationId).created({
      url: `${receiver.url}/foreign`,
      events: ['reservation.created'],
    });

    const reservation = await bookNext();
    // Nothing is sent on the booking's path: only the dispatcher and the workers send.
    assert.equal(receiver.received.length, 0);
    assert.deepEqual(await service().dispatch(), { events: 1, deliveries: 1 });
    assert.equal(await service().deliverDue(), 1);
    assert.equal(receiver.received.length, 1);
    const request = receiver.received[0]!;
    assert.equal(request.headers['content-type'], 'application/json');
    const event = verified(subscribed.secret, request);
    assert.equal(event.type, 'reservation.created');
    assert.equal(request.headers['webhook-id'], event.id);
    assert.equal(event.organisationId, owner.organisationId);
    assert.equal((event.data as { id: number }).id, reservation.id);
    // Dispatching and sending again: nothing new.
    assert.deepEqual(await service().dispatch(), { events: 0, deliveries: 0 });
    assert.equal(await service().deliverDue(), 0);
    assert.equal(receiver.received.length, 1);
    assert.equal(expectStatus(await hooks.deliveries(other.id), 200).items.length, 0);
    assert.equal(expectStatus(await hooks.deliveries(paused.id), 200).items.length, 0);
  });

  test('a receiver failing twice then answering 2xx: retried with backoff, one webhook-id (fake clock)', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    let calls = 0;
    receiver.behave((_request, response) => {
      calls += 1;
      response.writeHead(calls <= 2 ? 500 : 200).end(calls <= 2 ? 'try later' : 'ok');
    });
    await bookNext();
    await service().dispatch();
    assert.equal(await service().deliverDue(), 1);
    let logged = await lastDelivery(hook.id);
    assert.equal(logged.status, 'pending');
    assert.equal(logged.attempts, 1);
    assert.equal(logged.lastStatusCode, 500);
    assert.equal(logged.lastError, 'HTTP 500: try later');
    assert.equal(Date.parse(logged.nextAttemptAt as string), Date.now() + 30_000);
    assert.equal(await service().deliverDue(), 0, 'not before its time');
    mock.timers.tick(30_000);
    assert.equal(await service().deliverDue(), 1);
    logged = await lastDelivery(hook.id);
    assert.equal(Date.parse(logged.nextAttemptAt as string), Date.now() + 60_000, 'twice as long');
    mock.timers.tick(60_000);
    assert.equal(await service().deliverDue(), 1);
    logged = await lastDelivery(hook.id);
    assert.deepEqual(
      [logged.status, logged.attempts, logged.lastStatusCode, logged.lastError, logged.nextAttemptAt],
      ['succeeded', 3, 200, null, null],
    );
    assert.equal(receiver.received.length, 3);
    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    assert.equal(ids.size, 1);
    for (const request of receiver.received)
      assert.equal(verified(hook.secret, request).type, 'reservation.created');
  });

  test('failing for 3 days disables the endpoint; a manual retry once active delivers', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    receiver.behave((_request, response) => response.writeHead(503).end());
    await bookNext();
    await service().dispatch();
    let attempts = 0;
    for (;;) {
      attempts += await service().deliverDue();
      const logged = await lastDelivery(hook.id);
      if (logged.status !== 'pending') break;
      assert.equal(expectStatus(await hooks.get(hook.id), 200).status, 'active', 'active within the window');
      mock.timers.setTime(Date.parse(logged.nextAttemptAt as string));
      assert.ok(attempts < 50, 'the retries end');
    }
    assert.equal(Date.now() - start, 3 * DAY, 'the last retry falls on the window end');
    assert.ok(attempts >= 10, `exponential backoff tries often early on (${attempts} attempts)`);
    const logged = await lastDelivery(hook.id);
    assert.equal(logged.status, 'failed');
    assert.equal(logged.attempts, attempts);
    assert.equal(logged.nextAttemptAt, null);
    const disabled = expectStatus(await hooks.get(hook.id), 200);
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.disabledAt, new Date().toISOString());
    assert.equal(receiver.received.length, attempts);
    // Written with the change, for the feed, other endpoints and the owners' mail.
    const announced = (await t.app.services.outbox.readAfter(null, 10_000)).filter(
      (event) => event.type === 'webhook.disabled',
    );
    assert.equal(announced.length, 1);
    assert.equal(announced[0]!.organisationId, owner.organisationId);
    assert.deepEqual(announced[0]!.data, disabled);

    // A disabled endpoint gets nothing new; active again, a manual retry sends the delivery.
    receiver.behave((_request, response) => response.writeHead(200).end());
    expectStatus(await hooks.patch(hook.id, { status: 'active' }), 200);
    const retried = expectStatus(await hooks.retry(hook.id, logged.id as number), 202);
    assert.equal(retried.status, 'pending');
    await t.app.jobs.idle();
    const done = await lastDelivery(hook.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, attempts + 1);
    expectError(await hooks.retry(hook.id, 999_999), 404, 'NOT_FOUND');
  });

  test('a receiver that hangs times out at 10 s without holding up bookings', async () => {
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    const hanging: Array<() => void> = [];
    receiver.behave((_request, response) => hanging.push(() => response.destroy()));
    await bookNext();
    await service().dispatch();
    mock.timers.enable({ apis: ['Date', 'setTimeout'], now: Date.now() });
    const running = service().deliverDue();
    while (receiver.received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The attempt in flight holds no booking back.
    mock.timers.tick(9_000);
    await bookNext();
    mock.timers.tick(1_000);
    assert.equal(await running, 1);
    const logged = await lastDelivery(hook.id);
    assert.deepEqual(
      [logged.status, logged.lastStatusCode, logged.lastError],
      ['pending', null, 'no answer within 10 s'],
    );
    for (const release of hanging) release();
  });

  test('a redirect is not followed and a huge answer is read only to 64 KiB', async () => {
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    receiver.behave((_request, response) =>
      response.writeHead(307, { location: `${receiver.url}/elsewhere` }).end(),
    );
    await bookNext();
    await service().dispatch();
    await service().deliverDue();
    let logged = await lastDelivery(hook.id);
    assert.deepEqual(
      [logged.status, logged.lastStatusCode, logged.lastError],
      ['pending', 307, 'HTTP 307: redirects are not followed'],
    );
    assert.equal(receiver.received.length, 1, 'the location was never requested');

    let written = 0;
    let closed: () => void = () => {};
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    receiver.behave((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!response.destroyed && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
      };
      response.on('close', () => closed());
      pump();
    });
    expectStatus(await hooks.retry(hook.id, logged.id as number), 202);
    await t.app.jobs.idle();
    await connectionClosed;
    logged = await lastDelivery(hook.id);
    assert.equal(logged.lastStatusCode, 500, JSON.stringify(logged));
    assert.ok((logged.lastError as string).length <= 220, 'only the start of the answer is kept');
    assert.ok(written < 64 * 1024 * 1024, `the receiver was cut off early (${written} bytes written)`);
  });

  test('the delivery log pages newest first', async () => {
    const hook = await hooks.created({ url: receiver.url, events: ['reservation.created'] });
    for (let i = 0; i < 3; i++) await bookNext();
    await service().dispatch();
    await service().deliverDue();
    const first = expectStatus(await hooks.deliveries(hook.id, '?limit=2'), 200);
    assert.equal(first.items.length, 2);
    assert.ok(first.items[0].id > first.items[1].id);
    const second = expectStatus(await hooks.deliveries(hook.id, `?limit=2&cursor=${first.nextCursor}`), 200);
    assert.equal(second.items.length, 1);
    assert.equal(second.nextCursor, null);
    assert.ok(second.items[0].id < first.items[1].id);
    expectError(await hooks.deliveries(hook.id, '?cursor=nonsense'), 400, 'VALIDATION_FAILED');
  });
});

describe('webhook endpoints: bad input', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let hooks: ReturnType<typeof webhooksOf>;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app);
    hooks = webhooksOf(t.app, owner, owner.organisationId);
  });
  after(() => t.close());

  const refused = async (body: Record<string, unknown>, path: string, message: RegExp) => {
    const error = expectError(await hooks.create(body), 400, 'VALIDATION_FAILED');
    const detail = error.details?.find((d) => d.path === path);
    assert.ok(detail, `${path} in ${JSON.stringify(error)}`);
    assert.match(detail.message, message);
  };

  test('not https, a private address, too long, credentials, unknown event types: 400 naming why', async () => {
    const events = ['reservation.created'];
    await refused({ url: 'http://93.184.216.34/hook', events }, 'body.url', /must use https/);
    await refused({ url: 'https://127.0.0.1/hook', events }, 'body.url', /public address/);
    await refused({ url: 'https://[::1]/hook', events }, 'body.url', /public address/);
    await refused({ url: 'https://10.1.2.3/hook', events }, 'body.url', /public address/);
    await refused(
      { url: 'https://localhost/hook', events },
      'body.url',
      /public addresses only|does not resolve/,
    );
    await refused(
      { url: `https://93.184.216.34/${'a'.repeat(2048)}`, events },
      'body.url',
      /at most 2048 characters/,
    );
    await refused({ url: 'https://user:pw@93.184.216.34/hook', events }, 'body.url', /user information/);
    await refused({ url: 'not a url', events }, 'body.url', /not a valid URL/);
    await refused(
      { url: 'https://93.184.216.34/hook', events: ['reservation.created', 'booking.made'] },
      'body.events',
      /unknown event type\(s\): booking\.made/,
    );
    await refused({ url: 'https://93.184.216.34/hook', events: [] }, 'body.events', /at least one/);
    expectError(
      await hooks.create({ url: 'https://93.184.216.34/hook', events, extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(expectStatus(await hooks.list(), 200).items.length, 0, 'nothing written');
    // A PATCH to a private address is refused the same way.
    const hook = await hooks.created({ url: 'https://93.184.216.34/hook', events });
    const error = expectError(
      await hooks.patch(hook.id, { url: 'https://192.168.1.1/' }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(error.details?.[0]?.path, 'body.url');
    await hooks.delete(hook.id);
  });

  test('a 21st endpoint of an organisation: 400 with the reason', async () => {
    for (let i = 0; i < 20; i++)
      await hooks.created({ url: `https://93.184.216.34/hook/${i}`, events: ['reservation.created'] });
    const error = expectError(
      await hooks.create({ url: 'https://93.184.216.34/hook/20', events: ['reservation.created'] }),
      400,
      'VALIDATION_FAILED',
    );
    assert.match(error.message, /at most 20 webhook endpoints/);
    assert.equal(expectStatus(await hooks.list(), 200).items.length, 20);
  });
});
