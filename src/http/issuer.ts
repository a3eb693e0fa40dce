import type { Context } from "hono";
import { getConfig } from "../config";

/** The issuer identifier (RFC 8414 §2, RFC 9207): configured, or the request's origin. */
export function issuerOf(c: Context): string {
  return issuerFor(c.env, c.req.url);
}

/** issuerOf for code that holds the bindings and the request's URL rather than a Hono context. */
export function issuerFor(env: Context["env"], url: string): string {
  return getConfig(env).issuer || new URL(url).origin;
}
