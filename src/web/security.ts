import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "../domain/errors";
import type { AppEnv } from "../env";
import { verifyCsrf } from "./session";

/**
 * Headers of every page: a strict CSP (no inline script or style, nothing from elsewhere, never
 * framed), nosniff, no referrer leaving the origin, HSTS over HTTPS, and no caching of pages that
 * show secrets. `formAction: false` is for pages whose form ends in a redirect to another site
 * (the consent page), because Chromium applies form-action to the redirect too.
 */
export function pageSecurityHeaders(opts: { formAction?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    setPageSecurityHeaders(c, c.res.headers, opts);
  });
}

/** The headers of pageSecurityHeaders on one response (a page answered outside any page door: the not-found page). */
export function setPageSecurityHeaders(c: Context, h: Headers, opts: { formAction?: boolean } = {}): void {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(opts.formAction === false ? [] : ["form-action 'self'"]),
  ].join("; ");
  if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", csp);
  h.set("X-Content-Type-Options", "nosniff");
  h.set("X-Frame-Options", "DENY");
  if (!h.has("Referrer-Policy")) h.set("Referrer-Policy", "strict-origin-when-cross-origin");
  h.set("Cross-Origin-Opener-Policy", "same-origin");
  if (new URL(c.req.url).protocol === "https:") h.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
}

const csrfRefused = () => new AppError("forbidden", "The form's security token is missing or out of date. Go back, reload the page and try again.", { reason: "csrf" });

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether an unsafe request comes from a page of this origin: the browser's `Sec-Fetch-Site:
 * same-origin`, or an `Origin` equal to ours (the same two signals Hono's csrf() reads). Unlike
 * Hono's csrf(), which looks only at bodies a cross-site form can send, this holds whatever the
 * content type: a page takes no cross-origin request of any kind (docs/security.md, "CSRF").
 */
export function fromOwnOrigin(c: Context<AppEnv>): boolean {
  if (c.req.header("sec-fetch-site") === "same-origin") return true;
  return c.req.header("origin") === new URL(c.req.url).origin;
}

/**
 * CSRF protection of every unsafe request to a page (POST, and PUT, PATCH, DELETE, which no page
 * serves but which must not reach a route unchecked either): the Origin / Sec-Fetch-Site check,
 * then the session-bound token in the form field `authenticity_token` (GitLab's name) or, for a
 * body that is not a form, the `X-CSRF-Token` header.
 */
export const requireCsrf = createMiddleware<AppEnv>(async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next();
  if (!fromOwnOrigin(c)) throw csrfRefused();
  if (!(await verifyCsrf(c, await formToken(c)))) throw csrfRefused();
  await next();
});

async function formToken(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) return c.req.header("x-csrf-token") ?? "";
  try {
    const body = await c.req.parseBody();
    const v = body["authenticity_token"];
    return typeof v === "string" ? v : "";
  } catch {
    // A body that does not parse carries no token: refused like any other forgery.
    return "";
  }
}
