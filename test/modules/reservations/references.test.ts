// Public references (DECISIONS.md "Pages people live in"): every reservation has one, eight
// characters of an unambiguous alphabet, unique in its organisation and not sequential; the
// public answers, the manage page and the reservation's events carry it; migration 0056 gives
// one to every reservation that existed before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { giveEveryReservationOne } from '../../../src/modules/reservations/migrations/0056_reservation_references.js';
import { reservationOfStoredRow } from '../../../src/modules/reservations/repo.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, createReservation, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

const REFERENCE = /^[2-9A-HJ-NP-Z]{8}$/;

describe('public references', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const slug = `refs-${process.pid}`;
  const mon = futureMonday();
  let slots = 0;
  /** The next half hour on the room from Monday 09:00 (UTC). */
  const slot = () => {
    slots += 1;
    return { resourceId: room.id, startTime: at(mon, 9, 30 * slots), endTime: at(mon, 9, 30 * slots + 30) };
  };
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { name: 'Refs', slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { minBookingDuration: 30 });
    room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
  });
  after(() => t.close());

  test('every booking gets its own: 8 unambiguous characters, answered and read back', async () => {
    const booked = [
      await createReservation(t.app, owner, slot()),
      await createReservation(t.app, owner, slot()),
      await createReservation(t.app, owner, slot()),
    ];
    for (const r of booked) {
      assert.match(r.reference, REFERENCE);
      const read = await t.app.inject({
        method: 'GET',
        url: `/api/reservations/${r.id}`,
        headers: owner.auth,
      });
      assert.equal(read.json().reference, r.reference);
    }
    assert.equal(new Set(booked.map((r) => r.reference)).size, booked.length);
  });

  test('a public hold answers it, the manage page shows it, and its event carries it', async () => {
    const held = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/holds`,
      payload: { ...slot(), customer },
    });
    assert.equal(held.statusCode, 201, held.body);
    const { reference, manageToken, id } = held.json();
    assert.match(reference, REFERENCE);
    const managed = await t.app.inject({ method: 'GET', url: `/api/public/reservations/${manageToken}` });
    assert.equal(managed.json().reference, reference);
    // The event's stored row (SQLite's trigger names each column it stores) maps to the same reference.
    const events = await t.db.kysely
      .selectFrom('outboxEvents')
      .select(['data', 'occurredAt'])
      .where('type', '=', 'reservation.held')
      .execute();
    const stored = events
      .map((event) => reservationOfStoredRow(JSON.parse(event.data), String(event.occurredAt)))
      .find((record) => record.id === id);
    assert.equal(stored?.reference, reference);
  });

  test("a dry run draws none: the would-be booking's reference is null", async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/reservations?dryRun=true',
      headers: owner.auth,
      payload: { ...slot(), customer },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().wouldSucceed, true);
    assert.equal(r.json().reservation.reference, null);
  });

  test('the migration gives every reservation that had none its own, unique in its organisation', async () => {
    const other = await ownerWithOrganisation(t.app, { name: 'Other refs', timezone: 'UTC' });
    const otherType = await createType(t.app, other);
    const otherRoom = await createResource(t.app, other, { name: 'R', resourceTypeId: otherType.id });
    await t.app.inject({
      method: 'POST',
      url: '/api/reservations',
      headers: other.auth,
      payload: { resourceId: otherRoom.id, startTime: at(mon, 9), endTime: at(mon, 10), customer },
    });
    await createReservation(t.app, owner, slot());
    // As the rows stood before the column existed: its default, which the unique index leaves out.
    await t.db.kysely.updateTable('reservations').set({ reference: '' }).execute();
    await giveEveryReservationOne(t.db.kysely as never);
    const rows = await t.db.kysely
      .selectFrom('reservations')
      .select(['organisationId', 'reference'])
      .execute();
    assert.ok(rows.length >= 5);
    for (const row of rows) assert.match(row.reference, REFERENCE);
    const keys = rows.map((row) => `${row.organisationId}/${row.reference}`);
    assert.equal(new Set(keys).size, keys.length);
  });
});
