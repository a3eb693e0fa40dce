import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { issuerOf } from "../oauth/issuer";
import { rateLimitHeaders, ThrottledError } from "../throttle";
import { MalformedPathError } from "../http/path-decoding";
import { logUnexpectedError } from "../observability/error-log";

/** The error codes of the OCI distribution spec (v1.1, "Error Codes"), with their statuses here. */
export const OCI_ERRORS = {
  BLOB_UNKNOWN: 404,
  BLOB_UPLOAD_INVALID: 400,
  BLOB_UPLOAD_UNKNOWN: 404,
  DIGEST_INVALID: 400,
  MANIFEST_BLOB_UNKNOWN: 400,
  MANIFEST_INVALID: 400,
  MANIFEST_UNKNOWN: 404,
  NAME_INVALID: 400,
  NAME_UNKNOWN: 404,
  SIZE_INVALID: 400,
  UNAUTHORIZED: 401,
  DENIED: 403,
  UNSUPPORTED: 415,
  RANGE_INVALID: 416,
  TOOMANYREQUESTS: 429,
} as const;
export type OciErrorCode = keyof typeof OCI_ERRORS;

/** An error of the registry family (/v2/ and /jwt/auth); rendered only by renderRegistryError. */
export class RegistryError extends Error {
  constructor(
    readonly code: OciErrorCode,
    message: string,
    readonly opts: { status?: ContentfulStatusCode; detail?: unknown; scope?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "RegistryError";
  }
}

/** The token service's address, as the challenge names it (GitLab's /jwt/auth). */
export const tokenRealm = (c: Context) => `${issuerOf(c)}/jwt/auth`;

export function challenge(c: Context, scope?: string): string {
  const parts = [`realm="${tokenRealm(c)}"`, `service="container_registry"`];
  if (scope) parts.push(`scope="${scope}"`);
  return `Bearer ${parts.join(",")}`;
}

/** The one place registry errors are rendered: `{"errors":[{code,message,detail}]}` (OCI spec). */
export function renderRegistryError(err: Error, c: Context): Response {
  c.header("Docker-Distribution-API-Version", "registry/2.0");
  c.header("Cache-Control", "no-store");
  if (err instanceof RegistryError) {
    const status = err.opts.status ?? OCI_ERRORS[err.code];
    if (status === 401) c.header("WWW-Authenticate", challenge(c, err.opts.scope));
    for (const [k, v] of Object.entries(err.opts.headers ?? {})) c.header(k, v);
    return c.json({ errors: [{ code: err.code, message: err.message, detail: err.opts.detail ?? null }] }, status as ContentfulStatusCode);
  }
  if (err instanceof MalformedPathError) {
    // The distribution spec's name and reference grammars admit no escapes at all.
    return c.json({ errors: [{ code: "NAME_INVALID", message: "the path holds a malformed percent-encoding", detail: null }] }, 400);
  }
  if (err instanceof ThrottledError) {
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json({ errors: [{ code: "TOOMANYREQUESTS", message: "too many failed authentication attempts; retry later", detail: null }] }, 429);
  }
  logUnexpectedError("registry", err, c);
  return c.json({ errors: [{ code: "UNKNOWN", message: "internal server error", detail: null }] }, 500);
}
