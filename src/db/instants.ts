import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './database.js';

/**
 * The instant `minutes` (an integer SQL expression, negative for earlier) after `instant`
 * (ISO text), in the form the dialect stores instants, so it compares with stored columns:
 * SQLite's ISO text (what `toISOString` writes), PostgreSQL's timestamptz.
 */
export function minutesAfter(
  dialect: Dialect,
  instant: string,
  minutes: RawBuilder<number>,
): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`(cast(${instant} as timestamptz) + (${minutes}) * interval '1 minute')`
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', ${instant}, (${minutes}) || ' minutes')`;
}
