import type { Db } from "./client";
import { totalOrNull } from "./listing";

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
