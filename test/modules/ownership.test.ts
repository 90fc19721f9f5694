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
 * Shared machinery outside src/modules that names a module's table, file → tables: the one
 * tenant gate joins the person's active membership and organisation into every credential read.
 */
const SHARED_MACHINERY_READS: Record<string, string[]> = {
  'src/tenancy/active-tenant.ts': ['organisationMemberships', 'organisations'],
};

const KYSELY_TABLE_CALL =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*['"`](\w+)/g;
/** Raw SQL (`sql\`...\``) naming a table after from, join, update or into, in snake case. */
const RAW_SQL = /\bsql(?:<[^`]*?>)?`([^`]*)`/g;
const RAW_SQL_TABLE = /\b(?:from|join|update|into)\s+([a-z_]+)/gi;

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const folderOf = (name: string) => snakeCase(name).replaceAll('_', '-');

/** Every .ts file under `dir` but migrations (and, from src/, the modules). */
function sourceFiles(dir: string, skip = ['migrations']): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(entry.name) ? [] : sourceFiles(path, skip);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The tables a file names, in Kysely calls and in raw SQL (camel case, as the manifests say). */
function tablesNamedIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const raw = [...text.matchAll(RAW_SQL)].flatMap(([, body]) =>
    [...body!.matchAll(RAW_SQL_TABLE)].map(([, table]) => camelCase(table!)),
  );
  return [...[...text.matchAll(KYSELY_TABLE_CALL)].map(([, table]) => table!), ...raw];
}

/** The tables the files name, each with the first file naming it. */
function referencedTables(files: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files)
    for (const table of tablesNamedIn(file)) if (!found.has(table)) found.set(table, file);
  return found;
}

const moduleFiles = (moduleName: string) => sourceFiles(join('src/modules', folderOf(moduleName)));

const owners = new Map<string, string[]>();
for (const module of MODULES)
  for (const table of module.tables) owners.set(table, [...(owners.get(table) ?? []), module.name]);

/** Each reference of a module to a table another module owns, as `module → table (file; owner)`. */
function crossModuleReads(): string[] {
  return MODULES.flatMap((module) =>
    [...referencedTables(moduleFiles(module.name))]
      // A name no module owns is a CTE, an alias (`with('reach', ...)`) or a function, not a table.
      .filter(([table]) => owners.has(table) && !owners.get(table)!.includes(module.name))
      .map(([table, file]) => `${module.name} → ${table} (${file}; owner: ${owners.get(table)})`),
  );
}

/** Each module table named by code outside src/modules, beyond SHARED_MACHINERY_READS. */
function sharedMachineryReads(): string[] {
  return sourceFiles('src', ['migrations', 'modules']).flatMap((file) =>
    [...new Set(tablesNamedIn(file))]
      .filter((table) => owners.has(table) && !SHARED_MACHINERY_READS[file]?.includes(table))
      .map((table) => `${file} → ${table} (owner: ${owners.get(table)})`),
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

  test('a module queries only its own tables; other modules go through its service or read ports', () => {
    const own = referencedTables(moduleFiles('reservations'));
    assert.ok(own.has('reservations'), 'the scan finds a module’s own tables in Kysely calls');
    assert.ok(
      tablesNamedIn('src/modules/organisations/ports.ts').includes('organisationMemberships'),
      'and in its ports',
    );
    assert.deepEqual(crossModuleReads(), [], 'reads of another module’s table: use its service or read port');
  });

  test('shared machinery names no module’s table but the tenant gate’s', () => {
    assert.deepEqual(sharedMachineryReads(), [], 'use the owning module’s read port');
    for (const [file, tables] of Object.entries(SHARED_MACHINERY_READS))
      for (const table of tables)
        assert.ok(tablesNamedIn(file).includes(table), `${file} still names ${table}`);
  });

  test('raw SQL is scanned too', () => {
    assert.ok(tablesNamedIn('src/modules/agents/permissions-repo.ts').includes('agentPermissions'));
  });
});
