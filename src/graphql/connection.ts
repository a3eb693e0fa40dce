import { GraphQLError } from "graphql";
import type { Page, Window } from "../db/page";

export type { Page, Window };

/**
 * Relay connections (GitLab: first/after/last/before, at most 100 nodes a page). Cursors are opaque
 * base64 offsets into the ordered result; `count` is the total.
 */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export const MAX_PAGE_SIZE = 100;


function decodeCursor(cursor: string, name: string): number {
  let n = Number.NaN;
  try {
    const m = /^offset:(\d+)$/.exec(atob(cursor));
    if (m) n = Number(m[1]);
  } catch {
    // fall through to the error below
  }
  if (!Number.isSafeInteger(n)) throw new GraphQLError(`Argument '${name}' is not a valid cursor`);
  return n;
}

const encodeCursor = (offset: number) => btoa(`offset:${offset}`);

/** The slice [start, end) of a result of `total` rows that the arguments select. */
export function pageWindow(args: ConnectionArgs, total: number): Window {
  for (const name of ["first", "last"] as const) {
    const v = args[name];
    if (v != null && v < 0) throw new GraphQLError(`Argument '${name}' must be a non-negative integer`);
  }
  let start = args.after ? decodeCursor(args.after, "after") + 1 : 0;
  let end = args.before ? Math.min(decodeCursor(args.before, "before"), total) : total;
  if (start > end) start = end;
  if (args.first != null) end = Math.min(end, start + Math.min(args.first, MAX_PAGE_SIZE));
  if (args.last != null) start = Math.max(start, end - Math.min(args.last, MAX_PAGE_SIZE));
  if (args.first == null && args.last == null) end = Math.min(end, start + MAX_PAGE_SIZE);
  return { offset: start, limit: Math.max(0, end - start) };
}

export interface Connection<T> {
  count: number;
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

export function toConnection<T>(rows: T[], window: Window, total: number): Connection<T> {
  const edges = rows.map((node, i) => ({ cursor: encodeCursor(window.offset + i), node }));
  return {
    count: total,
    nodes: rows,
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasPreviousPage: window.offset > 0,
      hasNextPage: window.offset + rows.length < total,
    },
  };
}

/**
 * Fetches one page and the total (a data function runs both in one D1 batch). Only last/before
 * need the total before the page can be chosen, and so cost a second round trip.
 */
export async function paginate<T>(args: ConnectionArgs, fetch: (w: Window) => Promise<Page<T>>): Promise<Connection<T>> {
  if (args.last == null && !args.before) {
    const w = pageWindow(args, Number.MAX_SAFE_INTEGER);
    const { rows, total } = await fetch(w);
    return toConnection(rows, w, total);
  }
  const { total } = await fetch({ offset: 0, limit: 0 });
  const w = pageWindow(args, total);
  const rows = w.limit > 0 ? (await fetch(w)).rows : [];
  return toConnection(rows, w, total);
}

/** A connection whose `count` runs its query only if the request selects it. */
export interface LazyCountConnection<T> extends Omit<Connection<T>, "count"> {
  /** graphql-js's default resolver calls a function-valued field. */
  count: () => Promise<number>;
}

/**
 * As `paginate`, for lists whose count is costly at scale (counting every runner of a large
 * instance): the page is read with one extra row, which answers hasNextPage, and the count
 * runs only when the query asks for `count` or for `last`/`before` (which need the total first).
 */
export async function paginateLazyCount<T>(
  args: ConnectionArgs,
  page: (w: Window) => Promise<{ rows: T[]; hasNext: boolean }>,
  count: () => Promise<number>,
): Promise<Connection<T> | LazyCountConnection<T>> {
  if (args.last == null && !args.before) {
    const w = pageWindow(args, Number.MAX_SAFE_INTEGER);
    const { rows, hasNext } = await page(w);
    const { pageInfo, ...rest } = toConnection(rows, w, 0);
    let counted: Promise<number> | undefined;
    return { ...rest, count: () => (counted ??= count()), pageInfo: { ...pageInfo, hasNextPage: hasNext } };
  }
  const total = await count();
  const w = pageWindow(args, total);
  const rows = w.limit > 0 ? (await page(w)).rows : [];
  return toConnection(rows, w, total);
}

/**
 * A page whose total is capped (src/db/listing.ts, COUNT_CAP; GitLab gives no exact total above
 * 10,000 either) as a Page: above the cap, the total is what is known to exist (the rows up to this
 * page, and one more when a next page exists), so `hasNextPage` stays right.
 */
export function knownTotal<T>(w: Window, p: { rows: T[]; total: number | null; hasNext: boolean }): Page<T> {
  return { rows: p.rows, total: p.total ?? w.offset + p.rows.length + (p.hasNext ? 1 : 0) };
}
