import { fillPlaceholders, getTableColumns, type Column, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { d1Of, type Db } from "./client";

/**
 * A statement built by drizzle once per shape and run on the D1 binding (docs/scaling.md, "SQL
 * built once per shape"). Drizzle turns a query into SQL text by walking its chunks with an
 * `is()` check each, on every request; a listing's statement has hundreds of chunks, and its text
 * depends only on the listing's shape (the table, who is asking: an administrator, a member,
 * anonymous; the order; which filters are present), never on the values. So the text is built
 * the first time a shape is seen, with `sql.placeholder(name)` for every value, and each request
 * only fills the placeholders and binds them.
 *
 * The rule that keeps this safe: `build` receives nothing but what `key` names; every value that
 * varies between requests of the same key (a user id, a page's offset, a filter's value) goes in
 * through a placeholder. A value written into `build`'s SQL directly would be served to every
 * later request of that shape.
 */
export interface ShapedStatement {
  sql: string;
  params: unknown[];
}

const dialect = new SQLiteAsyncDialect();
/** Shapes are few (tables x viewers x orders x filters present), so the cache is bounded by code, not data. */
const built = new Map<string, ShapedStatement>();

export function shaped(key: string, build: () => SQL | { getSQL(): SQL }): ShapedStatement {
  let s = built.get(key);
  if (!s) {
    const query = build();
    s = dialect.sqlToQuery("getSQL" in query ? query.getSQL() : query);
    built.set(key, s);
  }
  return s;
}

/** A statement whose text is built for this request only (a shape with a value in it, e.g. a search's words). */
export const unshaped = (query: SQL | { getSQL(): SQL }): ShapedStatement => dialect.sqlToQuery("getSQL" in query ? query.getSQL() : query);

/** The rows as arrays, in the statement's column order (D1's raw form), with `values` bound to its placeholders. */
export async function rawRows<T extends unknown[]>(db: Db, s: ShapedStatement, values: Record<string, unknown>): Promise<T[]> {
  return d1Of(db)
    .prepare(s.sql)
    .bind(...fillPlaceholders(s.params, values))
    .raw<T>();
}

/** Reads a table's row from a raw row (rawRows), starting at column `at`. */
export interface RowReader<T> {
  /** The table's number of columns: where the columns selected after it start. */
  width: number;
  read: (raw: unknown[], at?: number) => T;
}

const readers = new WeakMap<SQLiteTable, RowReader<unknown>>();

/**
 * A table's columns keyed and decoded as drizzle's mapping does (null stays null; otherwise each
 * column's own mapFromDriverValue: booleans, JSON, timestamps), with the column list worked out
 * once per table where drizzle checks each field of each row again.
 */
export function rowReader<T>(table: SQLiteTable): RowReader<T> {
  let reader = readers.get(table);
  if (!reader) {
    const entries = Object.entries(getTableColumns(table)) as [string, Column][];
    const keys = entries.map(([k]) => k);
    const columns = entries.map(([, c]) => c);
    reader = {
      width: keys.length,
      read: (raw, at = 0) => {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) {
          const value = raw[at + i];
          row[keys[i]] = value === null ? null : columns[i].mapFromDriverValue(value);
        }
        return row;
      },
    };
    readers.set(table, reader);
  }
  return reader as RowReader<T>;
}
