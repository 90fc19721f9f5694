import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRIVACY_DECLARATIONS } from '../../../src/privacy-declarations.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { schemaTables } from '../../helpers/privacy.js';

// Every table of the migrated schema must have a privacy owner: a module's declaration
// saying what it holds about a person (or that it holds no personal data, and why).
// A table added later without a declaration fails here, on SQLite and on PostgreSQL.
describe('privacy declarations cover the whole schema', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('every table of the schema is declared by exactly one module', async () => {
    const owners = new Map<string, string[]>();
    for (const declaration of PRIVACY_DECLARATIONS)
      for (const table of Object.keys(declaration.tables))
        owners.set(table, [...(owners.get(table) ?? []), declaration.module]);
    const tables = await schemaTables(t.db);
    assert.ok(tables.includes('users') && tables.includes('data_subject_requests'));
    const undeclared = tables.filter((table) => !owners.has(table));
    assert.deepEqual(
      undeclared,
      [],
      'tables without a privacy declaration (add them to their module’s privacy.ts)',
    );
    const twice = [...owners].filter(([, modules]) => modules.length > 1);
    assert.deepEqual(twice, [], 'tables declared by more than one module');
    const stale = [...owners.keys()].filter((table) => !tables.includes(table));
    assert.deepEqual(stale, [], 'declared tables the schema does not have');
  });

  test('each declaration is consistent: categories, export sections, holdings, erasure', async () => {
    const categoryIds = PRIVACY_DECLARATIONS.flatMap((d) => d.categories.map((c) => c.id));
    assert.equal(new Set(categoryIds).size, categoryIds.length, 'category ids are unique');
    const sectionNames = PRIVACY_DECLARATIONS.flatMap((d) => d.exports.map((s) => s.name));
    assert.equal(new Set(sectionNames).size, sectionNames.length, 'export section names are unique');

    const user = await registerUser(t.app, 'Table Check');
    const subject = { userId: user.id, email: user.email, name: 'Table Check' };
    for (const declaration of PRIVACY_DECLARATIONS) {
      const own = new Set(declaration.categories.map((c) => c.id));
      const holdings = await declaration.holdings(t.db.kysely, subject);
      const exported = new Set(declaration.exports.map((s) => s.table));
      for (const [table, about] of Object.entries(declaration.tables)) {
        const where = `${declaration.module}: ${table}`;
        if (about.kind === 'none') {
          assert.ok(about.reason.length > 10, `${where} says why it holds no personal data`);
          assert.equal(holdings[table], undefined, `${where} holds nothing, so counts nothing`);
          assert.ok(!exported.has(table), `${where} holds nothing, so exports nothing`);
          continue;
        }
        assert.ok(
          own.has(about.category),
          `${where}: category ${about.category} is declared by ${declaration.module}`,
        );
        assert.ok(about.erasure.length > 0, `${where} says what erasure does`);
        assert.equal(typeof holdings[table], 'number', `${where} is counted`);
        if (about.kind === 'personal') assert.ok(exported.has(table), `${where} is exported`);
        else assert.ok(!exported.has(table), `${where} is tied to no account and never exported`);
      }
      for (const section of declaration.exports)
        assert.equal(
          declaration.tables[section.table]?.kind,
          'personal',
          `${section.name} exports its own personal table`,
        );
      for (const category of declaration.categories)
        assert.ok(
          Object.values(declaration.tables).some(
            (about) => about.kind !== 'none' && about.category === category.id,
          ),
          `${declaration.module}: category ${category.id} covers a table`,
        );
    }
  });

  test('erasing someone who holds nothing changes nothing', async () => {
    const subject = {
      userId: 2_000_000_000,
      email: 'never-registered@example.test',
      name: 'Never Registered',
    };
    await t.db.kysely.transaction().execute(async (trx) => {
      for (const declaration of [...PRIVACY_DECLARATIONS].reverse()) {
        const changed = await declaration.erase(trx, subject, new Date().toISOString());
        assert.ok(
          Object.values(changed).every((count) => count === 0),
          `${declaration.module} changed rows: ${JSON.stringify(changed)}`,
        );
      }
    });
  });
});
