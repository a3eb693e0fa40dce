import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/**
 * Sets (or appends) a header on the response already made, in place. Hono's c.header() after the
 * response is made builds a new Response each time; responses proxied from fetch() (git, plugins)
 * have immutable headers, and only those are copied, once.
 */
export function setResponseHeader(c: Context<AppEnv>, name: string, value: string, { append = false } = {}): void {
  try {
    if (append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  } catch {
    const copy = new Response(c.res.body, c.res);
    if (append) copy.headers.append(name, value);
    else copy.headers.set(name, value);
    c.res = undefined;
    c.res = copy;
  }
}

/**
 * The one place for headers every non-page response owes (issue 8, item 15; docs/security.md):
 *  - `X-Content-Type-Options: nosniff` on every response, so no JSON or text answer is ever
 *    sniffed into HTML or script;
 *  - on /api/*, when the route set no Cache-Control: `no-store` for writes (their responses are
 *    where new secrets appear: personal access tokens, application secrets and renewed ones,
 *    runner and registration tokens) and GitLab's `max-age=0, private, must-revalidate` for reads.
 * The OAuth token endpoints set `no-store` themselves (RFC 6749 §5.1); pages get theirs from
 * pageSecurityHeaders.
 */
export const nosniff = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status === 101 || c.res.headers.get("X-Content-Type-Options") === "nosniff") return;
  setResponseHeader(c, "X-Content-Type-Options", "nosniff");
});

export const apiCacheControl = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.headers.has("Cache-Control")) return;
  const read = c.req.method === "GET" || c.req.method === "HEAD";
  setResponseHeader(c, "Cache-Control", read ? "max-age=0, private, must-revalidate" : "no-store");
});
