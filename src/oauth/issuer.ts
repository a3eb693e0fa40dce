import type { Context } from "hono";
import { getConfig } from "../config";

/** The issuer identifier (RFC 8414 §2, RFC 9207): configured, or the request's origin. */
export function issuerOf(c: Context): string {
  return getConfig(c.env).issuer || new URL(c.req.url).origin;
}
