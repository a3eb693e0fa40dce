import type { Db } from "./client";
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { cappedCount, totalOrNull } from "./listing";
import { rawRows, rowReader, shaped } from "./shaped-statement";

/** A page to read: `limit` rows after the first `offset` (GraphQL connections, src/graphql/connection.ts). */
export interface Window {
  offset: number;
  limit: number;
}

/** One page of rows and the number of rows of the whole list. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/**
 * The page-and-count query written once: the page's rows and the count, in one D1 batch (one
 * round trip). `countQuery` selects `{ n: count(*) }` over the same FROM and WHERE as the rows.
 */
export async function pageAndCount<T>(db: Db, rowsQuery: Promise<T[]> | unknown, countQuery: unknown): Promise<Page<T>> {
  const [rows, [{ n }]] = (await db.batch([rowsQuery as never, countQuery as never])) as unknown as [T[], { n: number }[]];
  return { rows, total: n };
}

/** A REST listing's page: the rows, the total GitLab would send (null: none), whether a next page exists. */
export interface ListPage<T> {
  rows: T[];
  /** null above COUNT_CAP (GitLab omits X-Total and X-Total-Pages above 10,000) or on keyset pages. */
  total: number | null;
  hasNext: boolean;
}

/**
 * A REST listing's page, read with pageAndCount: `rowsQuery` reads `limit + 1` rows (the extra row
 * tells whether a next page exists, without a count); `countQuery` counts with cappedCount
 * (src/db/listing.ts), whose cap is the one place GitLab's 10,000-row rule is applied. A keyset
 * page (countQuery null) has no total and is one statement.
 */
export async function listPage<T>(db: Db, rowsQuery: Promise<T[]> | unknown, countQuery: unknown | null, limit: number): Promise<ListPage<T>> {
  const { rows, total } =
    countQuery === null ? { rows: (await (rowsQuery as Promise<T[]>)) as T[], total: null } : await pageAndCount<T>(db, rowsQuery, countQuery);
  return { rows: rows.slice(0, limit), total: total === null ? null : totalOrNull(total), hasNext: rows.length > limit };
}

/**
 * A search's page and its total in one statement: the rows `where` selects are found once (the
 * CTE `hits`, which SQLite materializes because it is read twice) and the page and the capped
 * count both read them, where a page query and a count query each ran the FTS match
 * (docs/scaling.md, "Search"). A page past the end has no row to carry the count: it is counted
 * then; an empty first page has nothing to count. The statement is built once per `shape.key`
 * (src/db/shaped-statement.ts): `where` holds its values in placeholders, `shape.values` binds
 * them (with `limit` and `offset`, this function's own).
 */
export async function searchPage<T>(
  db: Db,
  table: SQLiteTable,
  id: SQLiteColumn,
  where: SQL,
  order: SQL[],
  window: Window,
  shape: { key: string; values: Record<string, unknown> },
): Promise<ListPage<T>> {
  const values = { ...shape.values, limit: window.limit + 1, offset: window.offset };
  const page = shaped(shape.key, () => {
    // DISTINCT keeps SQLite from flattening the CTE into each of its two uses (which would run the
    // match twice); it is materialized once instead.
    const hits = db.$with("hits").as(db.selectDistinct({ id: sql<number>`${id}`.as("id") }).from(table).where(where));
    return db
      .with(hits)
      .select({ ...getTableColumns(table), listTotal: cappedCount(sql`hits`, undefined) })
      .from(table)
      .where(sql`${id} IN (SELECT id FROM hits)`)
      .orderBy(...order)
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"));
  });
  const reader = rowReader<T>(table);
  const rows = await rawRows<unknown[]>(db, page, values);
  // An empty first page means no match at all: the total is 0 without a second statement (and a
  // second D1 round trip running the match again). Only a page past the end is counted.
  const n = rows.length
    ? Number(rows[0][reader.width])
    : window.offset === 0
      ? 0
      : Number((await rawRows<[number]>(db, shaped(`${shape.key}|count`, () => sql`SELECT ${cappedCount(sql`${table}`, where)}`), values))[0][0]);
  return { rows: rows.slice(0, window.limit).map((r) => reader.read(r)), total: totalOrNull(n), hasNext: rows.length > window.limit };
}

/**
 * A REST listing's page and its total from one statement (one D1 round trip, no batch): the page's
 * query selects `listTotal`, the capped count (cappedCount), beside its `limit + 1` rows; SQLite
 * evaluates that uncorrelated subquery once. A page past the end has no row to carry it: only then
 * is `countAlone` asked (a second statement); an empty first page means there is nothing (0).
 */
export async function pageCarryingTotal<R extends { listTotal: number }>(
  rows: R[],
  window: Window,
  countAlone: () => Promise<number>,
): Promise<{ rows: Omit<R, "listTotal">[]; total: number | null; hasNext: boolean }> {
  const n = rows.length ? Number(rows[0].listTotal) : window.offset === 0 ? 0 : Number(await countAlone());
  const page = rows.slice(0, window.limit).map(({ listTotal: _, ...row }) => row);
  return { rows: page, total: totalOrNull(n), hasNext: rows.length > window.limit };
}
