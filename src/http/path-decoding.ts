import type { MiddlewareHandler } from "hono";
import { AppError } from "../domain/errors";

/**
 * The one path-parameter decoder (DESIGN, "Credentials: one layer, one front door"; docs/hardening.md
 * "Path decoding").
 *
 * - `rejectMalformedPath`, mounted first in src/app.ts, checks the raw path once: every `%` must
 *   start an escape of two hex digits and the escaped bytes must be UTF-8 (RFC 3986 §2.1; the WHATWG
 *   URL percent-decode then UTF-8 decode without replacement). Anything else is a
 *   `malformedPath()`, an AppError that every family's renderer answers with 400 in its own shape.
 * - Past it, Hono's router has decoded each parameter exactly once, correctly: a route reads
 *   `c.req.param(...)` and never decodes again (a second decode turns `%25zz` into a 500, and
 *   `%252F` into a `/`).
 * - A router of its own over the raw path (the OCI distribution API in src/registry/v2-routes.ts)
 *   decodes each segment with `decodePathSegment`.
 */

/** A request path with a malformed percent-encoding; 400 in the family's shape. */
export const malformedPath = () => new AppError("invalid", "the path holds a malformed percent-encoding", { reason: "malformed_path" });

/** One segment (or a whole path) decoded once; null when an escape is malformed or not UTF-8. */
export function decodePathSegment(raw: string): string | null {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The segment decoded once, or the malformedPath() error. */
export function decodePathSegmentOrThrow(raw: string): string {
  const decoded = decodePathSegment(raw);
  if (decoded === null) throw malformedPath();
  return decoded;
}

/** Global middleware: a path whose escapes do not decode is refused before any route sees it. */
export const rejectMalformedPath: MiddlewareHandler = async (c, next) => {
  // Most requests carry no escape at all; only those pay for parsing the URL.
  if (c.req.url.includes("%") && decodePathSegment(new URL(c.req.url).pathname) === null) throw malformedPath();
  await next();
};

/**
 * The last `count` segments of a path, each decoded once, for a route that takes them as a tail
 * (`/*`, src/http/router.ts): null unless the tail has exactly that many non-empty segments after
 * the route's fixed part (`fixed` segments, counting from the leading slash).
 */
export function pathTail(path: string, count: number, fixed: number): string[] | null {
  const segments = path.split("/").slice(1);
  if (segments.length !== fixed + count) return null;
  const tail = segments.slice(fixed);
  if (tail.some((s) => s === "")) return null;
  return tail.map(decodePathSegmentOrThrow);
}
