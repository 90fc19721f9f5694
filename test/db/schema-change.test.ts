import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { book, futureMonday, hourSlot } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

// The hot statements are prepared once per connection (SQLite: cached by text;
// PostgreSQL: named prepared statements). A migration another instance runs while this
// one serves, adding a column to a table they read with `*`, must not break them.
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('hot statements keep answering after a column is added to the tables they read', async () => {
  const owner = await ownerWithOrganisation(t.app);
  const type = await createType(t.app, owner, { bookingMode: 'POOL', minBookingDuration: 30 });
  await createResource(t.app, owner, { resourceTypeId: type.id, name: 'Court', capacity: 2 });
  const monday = futureMonday();
  // Sequential requests reuse one pooled connection, which now holds the prepared statements.
  assert.equal(
    (await book(t.app, owner, { resourceTypeId: type.id, ...hourSlot(monday, 1) })).statusCode,
    201,
  );
  for (const table of ['resource_types', 'resources', 'reservations', 'users']) {
    await sql`alter table ${sql.table(table)} add column added_later text`.execute(t.db.kysely);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const again = await book(t.app, owner, { resourceTypeId: type.id, ...hourSlot(monday, 2 + attempt) });
    assert.equal(again.statusCode, 201, again.body);
  }
  const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: owner.auth });
  assert.equal(me.statusCode, 200);
  assert.equal('addedLater' in me.json(), false);
});
