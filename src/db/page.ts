import type { Db } from "./client";

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
