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

/** pg's connection, the parts of it a run without a description uses (pg/lib/connection.js). */
interface Connection {
  bind(config: {
    portal: string;
    statement: string;
    values: unknown;
    binary: unknown;
    valueMapper: unknown;
  }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
}

/** pg's query, the parts of it this subclass uses (pg/lib/query.js: a submittable). */
interface QueryInternals {
  name?: string;
  values: unknown;
  portal: string;
  binary: unknown;
  rows: unknown;
  _result: ResultBuilder;
  _accumulateRows: boolean;
  _checkForMultirow(): void;
  handleRowDescription(message: { fields: Field[] }): void;
  hasBeenParsed(connection: Connection): boolean;
  prepare(connection: Connection): void;
  handleError(error: unknown, connection: Connection): void;
  _getRows(connection: Connection, rows: unknown): void;
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
 * booking read. A statement's first run on a connection is described, and its description is
 * compared with the shape kept for its name, so a statement whose columns changed (a new
 * connection preparing it after a migration) gets a new shape. Later runs on that connection ask
 * for no description at all: PostgreSQL sends a prepared statement's rows in the shape it was
 * first described with, or refuses the run once that would change (`cached plan must not change
 * result type`, which postgres.ts answers by running the text unnamed). That spares the server
 * describing every column and the client reading each description (a wide read's biggest
 * message). The config is the text itself, not an object pg would copy property by property.
 */
export function preparedQueryClass(
  driver: typeof pg,
  shapes = new Map<string, RowShape>(),
): QueryConstructor {
  // pg's value mapper for bind (pg/lib/utils.js), which its typings leave out.
  const { prepareValue } = (driver as unknown as { utils: { prepareValue: unknown } }).utils;
  const Query = driver.Query as unknown as new (
    text: string,
    values: unknown,
    callback: unknown,
  ) => QueryInternals;
  /** Each connection's statements, by name, with the shape their first run was described with. */
  const described = new WeakMap<Connection, Map<string, RowShape>>();
  class PreparedQuery extends Query {
    /** The connection this run was sent on, for its description to be kept for. */
    private connection: Connection | undefined;

    constructor(name: string, text: string, values: unknown, callback: unknown) {
      super(text, values, callback);
      this.name = name;
    }

    override prepare(connection: Connection): void {
      const shape = described.get(connection)?.get(this.name!);
      if (shape === undefined || !this.hasBeenParsed(connection)) {
        this.connection = connection;
        super.prepare(connection);
        return;
      }
      this.takeShape(shape);
      runWithoutDescription(this, connection, prepareValue);
    }

    override handleRowDescription(message: { fields: Field[] }): void {
      const name = this.name!;
      let shape = shapes.get(name);
      if (shape === undefined || !sameFields(shape.fields, message.fields)) {
        super.handleRowDescription(message);
        const result = this._result;
        shape = { fields: result.fields, parsers: result._parsers, empty: result._prebuiltEmptyResultObject };
        shapes.set(name, shape);
      } else {
        this._checkForMultirow();
        this.takeShape(shape);
      }
      if (this.connection) {
        if (!described.has(this.connection)) described.set(this.connection, new Map());
        described.get(this.connection)!.set(name, shape);
      }
    }

    private takeShape(shape: RowShape): void {
      const result = this._result;
      result.fields = shape.fields;
      result._parsers = shape.parsers;
      result._prebuiltEmptyResultObject = shape.empty;
      // A query with a callback keeps its rows (pg's own rule).
      this._accumulateRows = true;
    }
  }
  return PreparedQuery as unknown as QueryConstructor;
}

/**
 * pg's own prepare (pg/lib/query.js) of a statement `connection` has parsed before, without the
 * parse and without the describe: bind, execute, sync.
 */
function runWithoutDescription(query: QueryInternals, connection: Connection, prepareValue: unknown): void {
  try {
    connection.bind({
      portal: query.portal,
      statement: query.name!,
      values: query.values,
      binary: query.binary,
      valueMapper: prepareValue,
    });
  } catch (error) {
    connection.close({ type: 'S', name: query.name! });
    connection.sync();
    query.handleError(error, connection);
    return;
  }
  query._getRows(connection, query.rows);
}
