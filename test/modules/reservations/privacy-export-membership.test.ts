import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createReservation, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus, ok } from '../../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';

type Exported = {
  id: number;
  customerName: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  notes: string | null;
};

/**
 * Membership ends access, in the personal data export too: the reservations a member made
 * are theirs to export, but the customer of a booking made for someone else is shown only
 * while they belong to its organisation; their own bookings keep their details.
 */
describe('the export of a member who left', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const mon = futureMonday();
  const exported = async (user: SignedInUser) =>
    ((await ok(t.app, user, 'GET', `${PRIVACY}/export`)) as { data: { reservations: Exported[] } }).data
      .reservations;

  test("a removed member's export keeps their bookings, not the organisation's customers", async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const forCustomer = await createReservation(t.app, member, {
      customer: { name: 'Ada Exportwatch', email: 'ada.exportwatch@example.test', phone: '+44 1' },
      resourceId: room.id,
      ...hourSlot(mon, 9),
      notes: 'Window seat',
    });
    const forThemselves = await createReservation(t.app, member, {
      customer: { name: 'Me', email: member.email },
      resourceId: room.id,
      ...hourSlot(mon, 11),
      notes: 'Window seat',
    });

    const whileMember = new Map((await exported(member)).map((r) => [r.id, r]));
    assert.equal(whileMember.get(forCustomer.id)?.customerEmail, 'ada.exportwatch@example.test');

    expectStatus(
      await as(t.app, owner).delete(`/api/organisations/${owner.organisationId}/users/${member.id}`),
      204,
    );
    const afterRemoval = new Map((await exported(member)).map((r) => [r.id, r]));
    const theirs = afterRemoval.get(forCustomer.id)!;
    assert.deepEqual(
      [theirs.customerName, theirs.customerEmail, theirs.customerPhone, theirs.notes],
      [null, null, null, null],
    );
    const own = afterRemoval.get(forThemselves.id)!;
    assert.deepEqual([own.customerEmail, own.notes], [member.email, 'Window seat']);
  });
});
