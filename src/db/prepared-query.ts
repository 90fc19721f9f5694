import type pg from 'pg';

/** What pg reads of one column from a statement's row description. */
interface Field {
  name: string;
  dataTypeID: number;
  format: string;
}

/** The parts pg builds each result's rows from, made once per prepared statement. */
interface RowShape {
  fields: Field[];
  parsers: unknown[];
  empty: Record<string, null>;
}

/** pg's own result builder, as far as a shape is kept of it (pg/lib/result.js). */
interface ResultBuilder {
  fields: Field[];
  _parsers: unknown[];
  _prebuiltEmptyResultObject: Record<string, null>;
}

/** pg's query, the parts of it this subclass uses (pg/lib/query.js: a submittable). */
interface QueryInternals {
  name?: string;
  _result: ResultBuilder;
  _accumulateRows: boolean;
  _checkForMultirow(): void;
  handleRowDescription(message: { fields: Field[] }): void;
}

type QueryConstructor = new (
  name: string,
  text: string,
  values: unknown,
  callback: (error: Error | null, result: unknown) => void,
) => QueryInternals & { submit: unknown };

const sameFields = (kept: Field[], described: Field[]): boolean => {
  if (kept.length !== described.length) return false;
  for (let i = 0; i < kept.length; i++) {
    const a = kept[i]!;
    const b = described[i]!;
    if (a.name !== b.name || a.dataTypeID !== b.dataTypeID || a.format !== b.format) return false;
  }
  return true;
};

/**
 * A named prepared statement's run that builds its result from the statement's kept row shape.
 * pg describes the result on every execution and rebuilds, per run, each column's parser and an
 * empty row object (its `addFields`): several µs for a wide row, on every credential read and
 * booking read. The description still arrives and is compared with the kept one, so a statement
 * whose columns changed (a new connection preparing it after a migration) gets a new shape.
 * The config is the text itself, not an object pg would copy property by property.
 */
export function preparedQueryClass(
  driver: typeof pg,
  shapes = new Map<string, RowShape>(),
): QueryConstructor {
  const Query = driver.Query as unknown as new (
    text: string,
    values: unknown,
    callback: unknown,
  ) => QueryInternals;
  class PreparedQuery extends Query {
    constructor(name: string, text: string, values: unknown, callback: unknown) {
      super(text, values, callback);
      this.name = name;
    }

    override handleRowDescription(message: { fields: Field[] }): void {
      const name = this.name!;
      const kept = shapes.get(name);
      if (kept === undefined || !sameFields(kept.fields, message.fields)) {
        super.handleRowDescription(message);
        const result = this._result;
        shapes.set(name, {
          fields: result.fields,
          parsers: result._parsers,
          empty: result._prebuiltEmptyResultObject,
        });
        return;
      }
      this._checkForMultirow();
      const result = this._result;
      result.fields = kept.fields;
      result._parsers = kept.parsers;
      result._prebuiltEmptyResultObject = kept.empty;
      // A query with a callback keeps its rows (pg's own rule).
      this._accumulateRows = true;
    }
  }
  return PreparedQuery as unknown as QueryConstructor;
}
