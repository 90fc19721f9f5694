import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
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
    const book = async (customer: Record<string, string>, hour: number) =>
      expectStatus(
        await as(t.app, member).post('/api/reservations', {
          customer,
          resourceId: room.id,
          startTime: at(mon, hour),
          endTime: at(mon, hour + 1),
          notes: 'Window seat',
        }),
        201,
      ) as { id: number };
    const forCustomer = await book(
      { name: 'Ada Exportwatch', email: 'ada.exportwatch@example.test', phone: '+44 1' },
      9,
    );
    const forThemselves = await book({ name: 'Me', email: member.email }, 11);

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
