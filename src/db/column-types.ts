import type { ColumnType, Generated } from 'kysely';

// The column types every module's tables.ts declares with, apart from the Database type
// they merge into (types.ts), so neither imports the other.

/** Integer primary key assigned by the database. */
export type Id = Generated<number>;
/** ISO-8601 UTC text on SQLite, timestamptz on PostgreSQL; read back as ISO strings on both. */
export type Timestamp = string;
/** Boolean column: PostgreSQL answers booleans, SQLite 0/1, so reads go through Boolean(). */
export type Bool = ColumnType<boolean | number, boolean, boolean>;
/** JSON stored as text on both dialects; repos stringify on write and parse on read. */
export type JsonText = string;
