import { sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { fromBase64 } from "../crypto/random";

/**
 * What every listing shares (docs/scaling.md, "Listings"): a count that stops reading at GitLab's
 * 10,000 (GitLab omits X-Total and X-Total-Pages above it, so an exact count of a large table is
 * never needed), and the keyset condition on an (order column, id) pair.
 */
export const COUNT_CAP = 10_000;

/** The number of rows a FROM ... WHERE matches, read no further than COUNT_CAP + 1 rows. */
export function cappedCount(from: SQL, where: SQL | undefined): SQL<number> {
  return sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${from}${where ? sql` WHERE ${where}` : sql``} LIMIT ${COUNT_CAP + 1}))`;
}

/**
 * The number of rows a trigger-kept counter holds (the table row_counts: "projects", "groups", and
 * "<table>:<visibility>"; the custom migration people_row_counts): one primary-key read where a
 * capped count would read up to COUNT_CAP index entries.
 */
export function rowCount(name: string): SQL<number> {
  return sql<number>`(SELECT n FROM row_counts WHERE name = ${name})`;
}

/** null above COUNT_CAP: the caller sends no total (GitLab's behaviour above 10,000 rows). */
export const totalOrNull = (n: number): number | null => (Number(n) > COUNT_CAP ? null : Number(n));

export type Direction = "asc" | "desc";

/**
 * The rows after (col, id) = (value, lastId) in the listing's order: a row-value comparison that
 * an index on (col, id) serves as a range. For id order, col is id itself and value is ignored.
 */
export function keysetAfter(col: SQLiteColumn | SQL, id: SQLiteColumn, dir: Direction, value: unknown, lastId: number | Placeholder): SQL {
  if (col === id) return dir === "asc" ? sql`${id} > ${lastId}` : sql`${id} < ${lastId}`;
  return dir === "asc" ? sql`(${col}, ${id}) > (${value}, ${lastId})` : sql`(${col}, ${id}) < (${value}, ${lastId})`;
}

/**
 * GitLab's keyset cursor (Gitlab::Pagination::Keyset::Paginator): URL-safe base64 of a JSON object
 * with the order column's value and the id as strings, and "_kd": "n" (the next page's direction).
 */
export function encodeCursor(values: Record<string, string>): string {
  const json = JSON.stringify({ ...values, _kd: "n" });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

/** The cursor's values, or null when it is not one this service wrote (a 400 for the caller). */
export function decodeCursor(cursor: string): Record<string, string> | null {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(fromBase64(cursor.replace(/-/g, "+").replace(/_/g, "/"))));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== "string") return null;
      out[k] = v;
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * `column IN (ids)` with one bound parameter whatever the number of ids (a JSON array read by
 * json_each): D1 allows 100 bound parameters per statement, so a list of ids computed in code (a
 * page's rows, the projects a rule let through) is never bound one parameter per id.
 */
export function inIdList(column: SQLiteColumn | SQL, ids: readonly (number | string)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}
