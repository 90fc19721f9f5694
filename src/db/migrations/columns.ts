import type { ColumnDataType, CreateTableBuilder } from 'kysely';
import type { Dialect } from '../database.js';

/** Column types and shapes that differ between SQLite and PostgreSQL, in one place. */
export function columnsFor(dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    timestamp: (pg ? 'timestamptz' : 'text') as ColumnDataType,
    bool: (pg ? 'boolean' : 'integer') as ColumnDataType,
    /** Adds the integer primary key `id`, assigned by the database. */
    withId<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
      return table.addColumn('id', 'integer', (col) =>
        pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
      );
    },
  };
}

export type Columns = ReturnType<typeof columnsFor>;
