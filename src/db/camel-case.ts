import { CamelCasePlugin, type PluginTransformResultArgs, type QueryResult } from 'kysely';

type Row = Record<string, unknown>;
const RENAMERS_MAX = 1000;

/**
 * Kysely's CamelCasePlugin with its result mapping compiled: each set of columns a
 * query answers gets one constructor, `(row) => ({organisationId: row.organisation_id, ...})`,
 * where the plugin renamed every key of every row afresh (a list of a hundred rows
 * felt it). Nested objects and arrays (JSON PostgreSQL aggregated) map as the plugin maps them.
 */
export class CompiledCamelCasePlugin extends CamelCasePlugin {
  readonly #renamers = new Map<string, (row: Row) => Row>();
  readonly #nested = (value: unknown) => this.mapRow({ value }).value;

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<Row>> {
    const { rows } = args.result;
    if (!Array.isArray(rows) || rows.length === 0) return args.result;
    return { ...args.result, rows: this.renameRows(rows) };
  }

  /** The result mapping alone, for rows read past Kysely's executor. */
  renameRows(rows: Row[]): Row[] {
    if (rows.length === 0) return rows;
    // Every row of one result has the same columns.
    const columns = Object.keys(rows[0]!);
    const signature = columns.join('\u0000');
    let rename = this.#renamers.get(signature);
    if (!rename) {
      rename = this.#compile(columns);
      if (this.#renamers.size >= RENAMERS_MAX) this.#renamers.clear();
      this.#renamers.set(signature, rename);
    }
    return rows.map(rename);
  }

  #compile(columns: string[]): (row: Row) => Row {
    const fields = columns.map((column) => {
      const name = this.camelCase(column);
      const key = name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
      const read = `row[${JSON.stringify(column)}]`;
      return `${key}: typeof (value = ${read}) === 'object' && value !== null ? nested(value) : value`;
    });
    return new Function('nested', `return (row) => { let value; return { ${fields.join(', ')} }; };`)(
      this.#nested,
    ) as (row: Row) => Row;
  }
}
