import type { Context } from "hono";
import { ApiError, invalidParam } from "./errors";
import { idParam } from "./params";
import { decodeCursor } from "../../db/listing";

/** GitLab offset pagination: page (from 1), per_page (default 20, at most 100). */
export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** An absent or empty value takes the default; anything else must be a positive integer. */
function positive(c: Context, name: string, fallback: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const parsed = idParam.safeParse(raw);
  if (!parsed.success) throw invalidParam(name);
  return parsed.data;
}

export function parsePage(c: Context): PageRequest {
  const pageNo = positive(c, "page", 1);
  const perPage = Math.min(100, positive(c, "per_page", 20));
  return { page: pageNo, perPage, offset: (pageNo - 1) * perPage };
}

/** Stands for the page number in linksTo's template: letters and underscores, so URL serialisation keeps it as it is. */
const PAGE_MARK = "__PAGE__";

/**
 * The URL of each page of this listing: this request's URL with page and per_page set (where the
 * request had them, or appended) and no credential passed in the query (never echoed into a
 * header). Parsed and serialised once per response, then each link is the template with its page
 * number, where parsing, setting and serialising the URL for every link cost a third of the
 * listing's own JavaScript (docs/scaling.md, "SQL built once per shape").
 */
function linksTo(c: Context, perPage: number): (page: number) => string {
  const url = new URL(c.req.url);
  url.searchParams.set("page", PAGE_MARK);
  url.searchParams.set("per_page", String(perPage));
  url.searchParams.delete("access_token");
  url.searchParams.delete("private_token");
  const template = url.toString();
  const at = template.search(/[?&]page=__PAGE__/) + "?page=".length;
  const before = template.slice(0, at);
  const after = template.slice(at + PAGE_MARK.length);
  return (page) => `${before}${page}${after}`;
}

/**
 * Sets X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages and Link. A null total
 * is GitLab's behaviour above 10,000 rows (src/db/listing.ts, COUNT_CAP): no X-Total, no
 * X-Total-Pages and no rel="last"; whether a next page exists then comes from hasNext (the
 * listing read one row beyond the page).
 */
export function setPaginationHeaders(c: Context, req: PageRequest, total: number | null, hasNext?: boolean): void {
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / req.perPage));
  const next = (totalPages === null ? hasNext === true : req.page < totalPages) ? req.page + 1 : null;
  const prev = req.page > 1 ? (totalPages === null ? req.page - 1 : Math.min(req.page - 1, totalPages)) : null;
  c.header("X-Page", String(req.page));
  c.header("X-Per-Page", String(req.perPage));
  c.header("X-Next-Page", next ? String(next) : "");
  c.header("X-Prev-Page", prev ? String(prev) : "");
  if (total !== null && totalPages !== null) {
    c.header("X-Total", String(total));
    c.header("X-Total-Pages", String(totalPages));
  }
  const linkFor = linksTo(c, req.perPage);
  const links: string[] = [];
  if (prev) links.push(`<${linkFor(prev)}>; rel="prev"`);
  if (next) links.push(`<${linkFor(next)}>; rel="next"`);
  links.push(`<${linkFor(1)}>; rel="first"`);
  if (totalPages !== null) links.push(`<${linkFor(totalPages)}>; rel="last"`);
  // Appended: a deprecation Link (src/versioning/gate.ts) may already be on the response.
  c.header("Link", links.join(", "), { append: true });
}

/**
 * Keyset pagination: the Link to the next page is this request's URL with `next` set (GitLab:
 * id_after or id_before for projects and runners, cursor for groups and users) and page dropped;
 * no X-Total (that is the point of keyset). null: this is the last page.
 */
export function setKeysetNext(c: Context, perPage: number, next: Record<string, string> | null): void {
  c.header("X-Per-Page", String(perPage));
  if (next === null) return;
  const url = new URL(c.req.url);
  for (const [k, v] of Object.entries(next)) url.searchParams.set(k, v);
  url.searchParams.set("per_page", String(perPage));
  url.searchParams.delete("page");
  url.searchParams.delete("access_token");
  url.searchParams.delete("private_token");
  c.header("Link", `<${url.toString()}>; rel="next"`, { append: true });
}

/** Keyset by ascending id (runners, package pipelines): the next page starts after lastId. */
export function setKeysetLink(c: Context, perPage: number, lastId: number | null): void {
  setKeysetNext(c, perPage, lastId === null ? null : { id_after: String(lastId) });
}

/**
 * GitLab's offset limit (instance limit "max offset allowed by the REST API for offset-based
 * pagination", 50,000 by default): for the types that offer keyset pagination, an offset page whose
 * page x per_page passes it is 405, pointing to keyset (API::Helpers::PaginationStrategies).
 */
export const MAX_OFFSET = 50_000;

export function refuseOffsetPastLimit(req: PageRequest, type: "Project"): void {
  if (req.page * req.perPage <= MAX_OFFSET) return;
  throw new ApiError(405, {
    error: `Offset pagination has a maximum allowed offset of ${MAX_OFFSET} for requests that return objects of type ${type}. Remaining records can be retrieved using keyset pagination.`,
  });
}

/** GitLab's answer to keyset pagination with an order it does not offer keyset for. */
export const keysetUnavailable = () => new ApiError(405, { error: "Keyset pagination is not yet available for this type of request" });

/**
 * The (order value, id) a keyset cursor names, for the listing's order column; a cursor this
 * service did not write, or for another order, is a 400 (GitLab: "cursor is invalid").
 */
export function cursorAfter(cursor: string, column: string): { value: string; id: number } {
  const values = decodeCursor(cursor);
  const id = values?.id;
  if (!values || values[column] === undefined || id === undefined || !/^[1-9][0-9]{0,15}$/.test(id)) throw invalidParam("cursor");
  return { value: values[column], id: Number(id) };
}

/**
 * The repository tree's keyset token (GitLab's `page_token`, Gitaly's tree cursor): base64 of
 * `{"file_name":"<path of the page's last entry>"}`. The next page starts after that entry.
 */
export function treePageToken(path: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify({ file_name: path }))));
}

/** The path a tree page token names; a token this service did not write is a 400 (page_token is invalid). */
export function treePageAfter(token: string): string {
  const path = decodeCursor(token)?.file_name;
  if (!path) throw invalidParam("page_token");
  return path;
}
