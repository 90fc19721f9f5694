// What the booking page offers and what the server then accepts: a field the page marks
// optional is optional, and a paid type the organisation cannot take payment for is not offered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import {
  at,
  createResource,
  createType,
  customer,
  futureMonday,
  type OrgOwner,
  ownerWithOrganisation,
} from '../../helpers/catalogue.js';

describe('the booking page: what it offers is what the server takes', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const slug = `offers-${process.pid}`;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { name: 'Offers', slug, timezone: 'UTC' });
  });
  after(() => t.close());

  const post = (path: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: `/api/public/organisations/${slug}/${path}`, payload });

  test('a type listing phone: the page marks it optional, and a hold or booking without it is taken', async () => {
    const type = await createType(t.app, owner, {
      name: 'Consult',
      customerInfoFields: ['phone', 'company'],
    });
    const room = await createResource(t.app, owner, { name: 'Desk A', resourceTypeId: type.id });
    const mon = futureMonday();
    // What the page sends for a phone left empty: nothing, or (another client) an empty string.
    const held = await post('holds', {
      resourceId: room.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
      customer: { ...customer, company: 'ACME' },
    });
    assert.equal(held.statusCode, 201, held.body);
    assert.deepEqual(held.json().customer, { ...customer, company: 'ACME' });
    const booked = await post('reservations', {
      resourceId: room.id,
      startTime: at(mon, 10),
      endTime: at(mon, 11),
      customer: { ...customer, phone: '', company: 'ACME' },
    });
    assert.equal(booked.statusCode, 201, booked.body);
    assert.deepEqual(booked.json().customer, { ...customer, company: 'ACME' });
    // What the page marks required stays required, and the answer names the field to highlight.
    const missing = await post('holds', {
      resourceId: room.id,
      startTime: at(mon, 11),
      endTime: at(mon, 12),
      customer: { ...customer, phone: '+1 555', company: '' },
    });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(
      missing.json().error.details.map((d: { path: string }) => d.path),
      ['body.customer.company'],
    );
  });
});
