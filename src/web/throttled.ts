import type { Context } from "hono";
import { ThrottledError, rateLimitHeaders } from "../throttle";

/**
 * For a page refused by the failed-authentication throttle: sets Retry-After and RateLimit-* on
 * the response and returns the message to show in the page's error flash.
 */
export function throttledPageError(c: Context, e: ThrottledError): string {
  for (const [k, v] of Object.entries(rateLimitHeaders(e.status))) c.header(k, v);
  const minutes = Math.max(1, Math.ceil(e.status.retryAfterSeconds / 60));
  return `Too many failed attempts from your network address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

/** A rendered page answered as 429 when the error behind it was the throttle's. */
export function statusFor(e: unknown, page: Response): Response {
  return e instanceof ThrottledError ? new Response(page.body, { status: 429, headers: page.headers }) : page;
}
