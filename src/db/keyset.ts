import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { decodeCursor, encodeCursor } from '../lib/cursor.js';

/**
 * Keyset paging in (nullable timestamp ascending, nulls last; id ascending) order,
 * for lists sorted by a date that may be missing (tasks by due date, household
 * items by expiry). Identical SQL on SQLite and PostgreSQL.
 */
export interface NullableKey {
  value: string | null;
  id: number;
}

/** A cursor a list did not give out (a 400 upstream). */
export class InvalidCursorError extends Error {}

export function encodeNullableKey(value: string | null, id: number): string {
  return encodeCursor(value === null ? [id] : [value, id]);
}

export function decodeNullableKey(cursor: string): NullableKey {
  const key = decodeCursor(cursor);
  if (key?.length === 1 && Number.isInteger(key[0])) return { value: null, id: key[0] as number };
  if (key?.length === 2 && typeof key[0] === 'string' && Number.isInteger(key[1])) {
    const millis = Date.parse(key[0]);
    if (!Number.isNaN(millis)) return { value: new Date(millis).toISOString(), id: key[1] as number };
  }
  throw new InvalidCursorError();
}

/** Rows after `key` in the order of `orderByNullableKey`. */
export function afterNullableKey(column: string, key: NullableKey): RawBuilder<SqlBool> {
  const col = sql.ref(column);
  const id = sql.ref('id');
  return key.value === null
    ? sql<SqlBool>`(${col} is null and ${id} > ${key.id})`
    : sql<SqlBool>`(${col} > ${key.value} or (${col} = ${key.value} and ${id} > ${key.id}) or ${col} is null)`;
}

/** The first sort term: rows with a value (false) before rows without (true). */
export function nullsLast(column: string): RawBuilder<unknown> {
  return sql`${sql.ref(column)} is null`;
}

/**
 * One page of `query` in (`column` nulls last, id) order, after `cursor` (a cursor this gave
 * out; InvalidCursorError otherwise), with the cursor of the next page (null: none). Reads
 * `limit + 1` rows to know whether there is one.
 */
export async function pageByNullableKey<
  DB,
  TB extends keyof DB,
  K extends string,
  O extends { id: number } & Record<K, string | null>,
>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: K,
  cursor: string | undefined,
  limit: number,
): Promise<{ rows: O[]; nextCursor: string | null }> {
  const after =
    cursor === undefined ? query : query.where(afterNullableKey(column, decodeNullableKey(cursor)));
  const rows = await after
    .orderBy(nullsLast(column))
    .orderBy(sql.ref(column))
    .orderBy(sql.ref('id'))
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor: rows.length > limit && last ? encodeNullableKey(last[column], last.id) : null,
  };
}

/**
 * Newest-first paging by id (activity, audit, approvals, consent history): the id a page
 * continues before, from its cursor; a cursor no list gave out is InvalidCursorError.
 */
export function idBefore(cursor: string): number {
  const [id, extra] = decodeCursor(cursor) ?? [];
  if (!Number.isInteger(id) || extra !== undefined) throw new InvalidCursorError();
  return id as number;
}

/** The page of rows read newest first with `limit + 1`, and the cursor of the next page (null: none). */
export function newestFirstPage<R extends { id: number }>(
  rows: R[],
  limit: number,
): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeCursor([last.id]) : null };
}

/** `%text%` for `like ... escape '\'`, with the wildcards of `text` escaped. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive "contains" on both dialects: `lower(column) like lower(pattern) escape '\'`. */
export function containsIgnoringCase(column: string, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${containsPattern(text)}) escape '\\'`;
}
