import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database } from '../db/types.js';

/**
 * The contract between the privacy module and every module that stores data.
 * Each module declares, in its own `privacy.ts`, what its tables hold about a
 * person, how to export it and how to erase it; the privacy module only runs
 * these declarations (src/privacy-declarations.ts lists them all).
 */

/** The person a declaration acts on, read once before anything changes. */
export interface DataSubject {
  userId: number;
  /** Lowercase, as stored. */
  email: string;
  name: string;
}

/** A kind of personal data, as the access report explains it. */
export interface DataCategory {
  id: string;
  label: string;
  purpose: string;
  retention: string;
}

/**
 * How one table relates to people:
 * - `personal`: rows linked to a person's account; exported, counted, erased;
 * - `unlinked`: personal data (IP addresses, user agents) tied to no account; never
 *   exported (it cannot be attributed safely), bounded in size, and rows that mention
 *   the person's email are erased;
 * - `none`: no personal data, with the reason.
 */
export type TableDeclaration =
  | { kind: 'personal'; category: string; erasure: string }
  | { kind: 'unlinked'; category: string; erasure: string }
  | { kind: 'none'; reason: string };

export const personal = (category: string, erasure: string): TableDeclaration => ({
  kind: 'personal',
  category,
  erasure,
});
export const unlinked = (category: string, erasure: string): TableDeclaration => ({
  kind: 'unlinked',
  category,
  erasure,
});
export const noPersonalData = (reason: string): TableDeclaration => ({ kind: 'none', reason });

export type ExportRecord = Record<string, unknown>;
export type ExportKey = readonly (string | number)[];

/** One list of the export: the person's rows of one table, read in key order, a batch at a time. */
export interface ExportSection {
  /** The key of the list in the export's `data` object. */
  name: string;
  /** The table the rows come from (its holdings count them). */
  table: string;
  /**
   * Up to `limit` of the person's records after `after` (null: from the first), in key
   * order, and the key to continue from (null once there are no more).
   */
  batch(
    db: Executor,
    subject: DataSubject,
    after: ExportKey | null,
    limit: number,
  ): Promise<{ records: ExportRecord[]; next: ExportKey | null }>;
}

/** An agent that can act for the person (not disabled). */
export interface AgentDelegate {
  id: number;
  name: string;
  status: string;
  permissionGroupId: string | null;
  oauthClientId: string | null;
  liveKeys: number;
  createdAt: string;
  lastUsedAt: string | null;
}

/** An OAuth client holding a live grant (refresh token) for one of the person's agents. */
export interface OAuthClientDelegate {
  clientId: string;
  clientName: string | null;
  agentId: number;
  scope: string | null;
  grantedAt: string;
  expiresAt: string;
}

export interface Delegates {
  agents: AgentDelegate[];
  oauthClients: OAuthClientDelegate[];
}

export interface PrivacyDeclaration {
  /** The module that owns the tables, e.g. `tasks`. */
  module: string;
  /** Every table the module owns (snake_case, as in the schema). */
  tables: Record<string, TableDeclaration>;
  categories: DataCategory[];
  /**
   * How many rows of each `personal` or `unlinked` table hold the person's data:
   * the access report's counts, and all zero once the person is erased.
   */
  holdings(db: Executor, subject: DataSubject): Promise<Record<string, number>>;
  exports: ExportSection[];
  /**
   * Erases or anonymises the person's data, inside the one erasure transaction;
   * answers the rows changed by table. Must be idempotent (a job may run again).
   */
  erase(trx: Executor, subject: DataSubject, now: string): Promise<Record<string, number>>;
  /** Agents and OAuth clients that can act for the person. */
  delegates?(db: Executor, subject: DataSubject): Promise<Partial<Delegates>>;
}

// Helpers for declarations.

/** `count(*)` of a query, as a number on both dialects. */
export async function countOf(
  // biome-ignore lint/suspicious/noExplicitAny: any table set; only the count is read
  query: SelectQueryBuilder<Database, any, object>,
): Promise<number> {
  const row = await query
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Rows changed by an update or delete. */
export function changed(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint } | undefined): number {
  return Number(result?.numUpdatedRows ?? result?.numDeletedRows ?? 0);
}

/** A stored boolean (0/1 on SQLite) as a boolean. */
export const bool = (value: unknown): boolean => Boolean(value);

/** Stored JSON text as its value (null stays null). */
export function json(value: string | null): unknown {
  if (value === null) return null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** `(k1, k2) > (v1, v2)`: the rows after `after` in key order (row values work on both dialects). */
function afterKey(columns: readonly string[], after: ExportKey): RawBuilder<SqlBool> {
  if (columns.length === 1) return sql<SqlBool>`${sql.ref(columns[0]!)} > ${after[0]}`;
  return sql<SqlBool>`(${sql.join(columns.map((c) => sql.ref(c)))}) > (${sql.join(after)})`;
}

const fieldOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);

const camelNames = new Map<string, string>();
/** snake_case result keys to camelCase, as the app's CamelCasePlugin names them. */
function camelCaseKeys(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    let name = camelNames.get(key);
    if (name === undefined) {
      name = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      camelNames.set(key, name);
    }
    out[name] = row[key];
  }
  return out;
}

/** What `exportSection` reads: see there. */
interface ExportSectionSpec<Row extends object> {
  name: string;
  table: string;
  key: readonly string[];
  partition?: {
    column: string;
    // biome-ignore lint/suspicious/noExplicitAny: any table set; one id column
    values: (db: Executor, subject: DataSubject) => SelectQueryBuilder<Database, any, { id: number }>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: any table set; the rows are typed
  rows: (db: Executor, subject: DataSubject) => SelectQueryBuilder<Database, any, Row>;
  record?: (row: Row) => ExportRecord;
}

/** One batch of a section's rows after `after` in key order (within `parent` when partitioned). */
async function readPage<Row extends object>(
  spec: ExportSectionSpec<Row>,
  db: Executor,
  subject: DataSubject,
  after: ExportKey | null,
  limit: number,
  parent?: number,
): Promise<Row[]> {
  let query = spec.rows(db, subject);
  if (spec.partition) query = query.where(sql<SqlBool>`${sql.ref(spec.partition.column)} = ${parent}`);
  if (after) query = query.where(afterKey(spec.key, after));
  for (const column of spec.key) query = query.orderBy(sql.ref(column));
  // Compiled with the camel-case plugin (identifiers), run without it: the plugin renames
  // every key of every row afresh, the largest cost of a big export; a memo does it once.
  const compiled = query.limit(limit).compile();
  const { rows } = await db.withoutPlugins().executeQuery<Record<string, unknown>>(compiled);
  return rows.map(camelCaseKeys) as Row[];
}

/**
 * An export section over a query of the person's rows, read in batches by keyset
 * paging: `key` names the columns that order the rows (`table.column`, each selected
 * under its column name; together unique and never null). Each batch is one short
 * query, so the work grows with the rows, never with their square, provided the key
 * follows an index:
 * - without `partition`, the query's own filter is an equality the index starts with
 *   (`owner_id = ?` with an index on (owner_id, id), for example);
 * - with `partition`, the rows are read one parent at a time (`column = parent`, the
 *   parents listed by `values`, a short list such as the person's calendars), so the
 *   key only has to follow that column in an index. An `IN (...)` filter could not
 *   start a range scan at the key, and every batch would read its parents from the top.
 * Queries select their columns explicitly: secrets are never selected.
 */
export function exportSection<Row extends object>(spec: ExportSectionSpec<Row>): ExportSection {
  const fields = spec.key.map(fieldOf);
  // Rows are fresh objects (renamed below), so they can be the records as they are.
  const toRecord = spec.record ?? ((row: Row) => row as ExportRecord);
  const keyOf = (row: Row) => fields.map((field) => (row as Record<string, string | number>)[field]!);

  return {
    name: spec.name,
    table: spec.table,
    async batch(db, subject, after, limit) {
      if (!spec.partition) {
        const rows = await readPage(spec, db, subject, after, limit);
        const last = rows[rows.length - 1];
        return { records: rows.map(toRecord), next: rows.length === limit && last ? keyOf(last) : null };
      }
      // The key is (parent, ...key): continue in the parent the last batch ended in.
      const parents = (await spec.partition.values(db, subject).execute())
        .map((row) => row.id)
        .sort((a, b) => a - b);
      const rows: Row[] = [];
      for (const parent of parents) {
        if (after && parent < (after[0] as number)) continue;
        const within = after && parent === after[0] ? after.slice(1) : null;
        const found = await readPage(spec, db, subject, within, limit - rows.length, parent);
        rows.push(...found);
        if (rows.length === limit)
          return { records: rows.map(toRecord), next: [parent, ...keyOf(rows[rows.length - 1]!)] };
      }
      return { records: rows.map(toRecord), next: null };
    },
  };
}
