import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../src/db/database.js';
import { MODULES } from '../../src/modules/index.js';
import { createTestDatabase } from '../helpers/app.js';
import { schemaTables } from '../helpers/privacy.js';

// A module's tables are its own: it declares them in its manifest (`tables`), and only its
// code queries them. Another module goes through the owner's service or a read port the
// owner exports (a function of the owner's repo, handed over in module.ts).

/** Tables no module owns: the MCP runtime's (src/mcp/tables.ts) and the migrator's. */
const RUNTIME_TABLES = ['mcpSessions', 'kyselyMigration', 'kyselyMigrationLock'];

/**
 * The reads of another module's table not yet moved behind the owner's port: module → table
 * → why it is still here. An entry that no longer occurs fails the test (remove it).
 */
const KNOWN_CROSS_MODULE_READS: Record<string, Record<string, string>> = {
  calendars: {
    userGroupCalendars: 'lists calendars shared through groups in one query',
    userGroupMembers: 'lists calendars shared through groups in one query',
  },
  events: {
    calendars: 'privacy: finds a person’s events through their calendars',
  },
  userGroups: {
    calendars: 'privacy: finds calendars shared in a person’s groups',
    users: 'joins member names into the member list',
  },
  household: {
    userGroupMembers: 'lists items of the groups a person is in, in one query',
  },
  automation: {
    events: 'privacy: finds a person’s event tags through their events',
    calendars: 'privacy: finds a person’s event tags through their calendars',
  },
  agents: {
    oauthRefreshTokens: 'privacy: exports and erases a person’s refresh tokens with their agents',
  },
  oauth: {
    agents: 'privacy: finds a person’s refresh tokens through their agents',
  },
  availability: {
    resourceTypes: 'hot availability read joins resources, types and reservations in one query',
    resources: 'hot availability read joins resources, types and reservations in one query',
    reservations: 'hot availability read joins resources, types and reservations in one query',
    events: 'busy time reads the owner’s events in one query',
    calendars: 'busy time reads the owner’s events in one query',
  },
  mail: {
    reservations: 'renders a reservation’s mail from one joined read',
    resourceTypes: 'renders a reservation’s mail from one joined read',
    organisationMemberships: 'finds the staff a mail goes to',
    users: 'reads recipients’ addresses and names',
    organisationInvitations: 'reads an invitation’s invitee',
  },
  feeds: {
    reservations: 'a feed lists a resource’s reservations in one query',
    resources: 'a feed lists a resource’s reservations in one query',
  },
  bookingCalendar: {
    resources: 'mirrors reservations into the resource’s calendar',
    reservations: 'mirrors reservations into the resource’s calendar',
  },
};

const KYSELY_TABLE_CALL =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*['"`](\w+)/g;

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const folderOf = (name: string) => snakeCase(name).replaceAll('_', '-');

/** Every .ts file of a module's folder but its migrations. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The tables a module's code names in Kysely calls, each with the first file naming it. */
function referencedTables(moduleName: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(join('src/modules', folderOf(moduleName))))
    for (const [, table] of readFileSync(file, 'utf8').matchAll(KYSELY_TABLE_CALL))
      if (!found.has(table!)) found.set(table!, file);
  return found;
}

const owners = new Map<string, string[]>();
for (const module of MODULES)
  for (const table of module.tables) owners.set(table, [...(owners.get(table) ?? []), module.name]);

/** Each reference of a module to a table another module owns, as `module → table (file)`. */
function crossModuleReads(): Array<{ module: string; table: string; file: string }> {
  return MODULES.flatMap((module) =>
    [...referencedTables(module.name)]
      // A name no module owns is a CTE or an alias (`with('reach', ...)`), not a table.
      .filter(([table]) => owners.has(table) && !owners.get(table)!.includes(module.name))
      .map(([table, file]) => ({ module: module.name, table, file })),
  );
}

describe('modules own their tables', () => {
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await createTestDatabase());
  });
  after(() => drop());

  test('every table of the schema is declared by exactly one module', async () => {
    const schema = await schemaTables(db);
    const declared = new Set([...owners.keys(), ...RUNTIME_TABLES].map(snakeCase));
    assert.ok(schema.includes('users') && schema.includes('reservations'));
    assert.deepEqual(
      schema.filter((table) => !declared.has(table)),
      [],
      'tables no manifest declares',
    );
    assert.deepEqual(
      [...declared].filter((table) => !schema.includes(table)),
      [],
      'declared tables the schema does not have',
    );
    assert.deepEqual(
      [...owners].filter(([, modules]) => modules.length > 1),
      [],
      'tables declared by more than one module',
    );
  });

  test('a module queries only its own tables (or a known, listed exception)', () => {
    const reads = crossModuleReads();
    assert.ok(referencedTables('reservations').has('reservations'), 'the scan finds a module’s own tables');
    const unlisted = reads
      .filter(({ module, table }) => !KNOWN_CROSS_MODULE_READS[module]?.[table])
      .map(({ module, table, file }) => `${module} → ${table} (${file}; owner: ${owners.get(table)})`);
    assert.deepEqual(unlisted, [], 'reads of another module’s table: go through its service or read port');
    const stale = Object.entries(KNOWN_CROSS_MODULE_READS).flatMap(([module, tables]) =>
      Object.keys(tables)
        .filter((table) => !reads.some((read) => read.module === module && read.table === table))
        .map((table) => `${module} → ${table}`),
    );
    assert.deepEqual(stale, [], 'listed exceptions that no longer occur: remove them');
  });
});
