// What the privacy tests inspect: the schema's tables and text columns, what the declarations
// say is held about a person, and the export. The seed they inspect is in privacy-seed.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { DataSubject } from '../../src/privacy/declaration.js';
import { PRIVACY_DECLARATIONS } from '../../src/privacy-declarations.js';

export const PRIVACY = '/api/compliance/me/privacy';

/** A name no other row of the database contains by accident. */
export const uniqueName = (first: string) => `${first} Quillfeather${randomBytes(3).toString('hex')}`;

/** Every table of the schema the app runs on (PostgreSQL: the test's own schema). */
export async function schemaTables(db: Db): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.kysely);
    return rows.map((r) => r.name).sort();
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db.kysely);
  return rows.map((r) => r.name).sort();
}

/** Every text column of the schema, as [table, column]. */
export async function textColumns(db: Db): Promise<Array<[string, string]>> {
  if (db.dialect === 'postgres') {
    const { rows } = await sql<{ t: string; c: string }>`
      select table_name as t, column_name as c from information_schema.columns
      where table_schema = current_schema() and data_type in ('text', 'character varying')`.execute(
      db.kysely,
    );
    return rows.map((r) => [r.t, r.c]);
  }
  const columns: Array<[string, string]> = [];
  for (const table of await schemaTables(db)) {
    const { rows } = await sql<{
      name: string;
      type: string;
    }>`select name, type from pragma_table_info(${table})`.execute(db.kysely);
    for (const row of rows) if (row.type.toLowerCase() === 'text') columns.push([table, row.name]);
  }
  return columns;
}

/** `table.column` of every text value containing `needle` (any case). */
export async function columnsContaining(db: Db, needle: string): Promise<string[]> {
  const found: string[] = [];
  const pattern = `%${needle.toLowerCase()}%`;
  for (const [table, column] of await textColumns(db)) {
    // The raw connection: these are snake_case names straight from the catalogue.
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from ${sql.raw(`"${table}"`)} where lower(${sql.raw(`"${column}"`)}) like ${pattern}`.execute(
      db.kysely.withoutPlugins(),
    );
    if (Number(rows[0]?.n ?? 0) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** What every declaration says it holds about the person, by table (non-zero only). */
export async function holdingsOf(db: Db, subject: DataSubject): Promise<Record<string, number>> {
  const all: Record<string, number> = {};
  for (const declaration of PRIVACY_DECLARATIONS)
    for (const [table, count] of Object.entries(await declaration.holdings(db.kysely, subject)))
      if (count > 0) all[table] = count;
  return all;
}

/** Every table declared as holding personal data linked to an account. */
export function personalTables(): string[] {
  return PRIVACY_DECLARATIONS.flatMap((d) =>
    Object.entries(d.tables)
      .filter(([, about]) => about.kind === 'personal')
      .map(([table]) => table),
  ).sort();
}

/** Parses the export body; asserts it is one JSON document. */
// biome-ignore lint/suspicious/noExplicitAny: the export is read loosely
export function parseExport(response: LightMyRequestResponse): any {
  assert.equal(response.statusCode, 200, response.body.slice(0, 500));
  return JSON.parse(response.body);
}
