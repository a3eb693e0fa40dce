import type { Context } from "hono";
import { invalidParam } from "./errors";
import { idParam } from "./params";

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

function linkFor(c: Context, page: number, perPage: number): string {
  const url = new URL(c.req.url);
  url.searchParams.set("page", String(page));
  url.searchParams.set("per_page", String(perPage));
  // Never echo a credential passed in the query into a header.
  url.searchParams.delete("access_token");
  url.searchParams.delete("private_token");
  return url.toString();
}

/** Sets X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages and Link. */
export function setPaginationHeaders(c: Context, req: PageRequest, total: number): void {
  const totalPages = Math.max(1, Math.ceil(total / req.perPage));
  const next = req.page < totalPages ? req.page + 1 : null;
  const prev = req.page > 1 ? Math.min(req.page - 1, totalPages) : null;
  c.header("X-Page", String(req.page));
  c.header("X-Per-Page", String(req.perPage));
  c.header("X-Next-Page", next ? String(next) : "");
  c.header("X-Prev-Page", prev ? String(prev) : "");
  c.header("X-Total", String(total));
  c.header("X-Total-Pages", String(totalPages));
  const links: string[] = [];
  if (prev) links.push(`<${linkFor(c, prev, req.perPage)}>; rel="prev"`);
  if (next) links.push(`<${linkFor(c, next, req.perPage)}>; rel="next"`);
  links.push(`<${linkFor(c, 1, req.perPage)}>; rel="first"`);
  links.push(`<${linkFor(c, totalPages, req.perPage)}>; rel="last"`);
  // Appended: a deprecation Link (src/versioning/gate.ts) may already be on the response.
  c.header("Link", links.join(", "), { append: true });
}

/**
 * Keyset pagination (GitLab: pagination=keyset, id_after, order_by=id): the Link to the next page
 * carries the last id seen; no X-Total (that is the point of keyset).
 */
export function setKeysetLink(c: Context, perPage: number, lastId: number | null): void {
  c.header("X-Per-Page", String(perPage));
  if (lastId === null) return;
  const url = new URL(c.req.url);
  url.searchParams.set("id_after", String(lastId));
  url.searchParams.set("per_page", String(perPage));
  url.searchParams.delete("access_token");
  url.searchParams.delete("private_token");
  c.header("Link", `<${url.toString()}>; rel="next"`, { append: true });
}
