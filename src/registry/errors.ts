import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { issuerOf } from "../oauth/issuer";
import { rateLimitHeaders, ThrottledError } from "../throttle";
import { AuthError } from "../credentials/errors";
import { AppError, codeOfStatus, ERROR_STATUS, type ErrorCode } from "../domain/errors";
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
export class RegistryError extends AppError {
  constructor(
    readonly oci: OciErrorCode,
    message: string,
    readonly opts: { status?: ContentfulStatusCode; detail?: unknown; scope?: string; headers?: Record<string, string> } = {},
  ) {
    super(codeOfStatus(opts.status ?? OCI_ERRORS[oci]), message, { reason: oci });
    this.name = "RegistryError";
  }
}

/**
 * How an error of the family without an OCI code of its own reads in the registry's shape. The
 * registry's generic bad input is in its path (name or reference: the distribution spec's grammars
 * admit no escapes); UNKNOWN and UNAVAILABLE are the distribution reference implementation's codes.
 */
const OCI_CODE: Record<ErrorCode, string> = {
  invalid: "NAME_INVALID",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "DENIED",
  not_found: "NAME_UNKNOWN",
  conflict: "DENIED",
  too_large: "SIZE_INVALID",
  unsupported: "UNSUPPORTED",
  unprocessable: "MANIFEST_INVALID",
  rate_limited: "TOOMANYREQUESTS",
  internal: "UNKNOWN",
  bad_gateway: "UNAVAILABLE",
  unavailable: "UNAVAILABLE",
};

// The token service takes a token as the Basic password; its refusal says which tokens it takes.
const TOKEN_SERVICE_DENIED =
  "HTTP Basic: Access denied. The container registry accepts a personal access token (scopes read_registry, write_registry or api) or a deploy token as the password; OAuth access tokens and passwords are not accepted.";

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
    const status = err.opts.status ?? OCI_ERRORS[err.oci];
    if (status === 401) c.header("WWW-Authenticate", challenge(c, err.opts.scope));
    for (const [k, v] of Object.entries(err.opts.headers ?? {})) c.header(k, v);
    return c.json({ errors: [{ code: err.oci, message: err.message, detail: err.opts.detail ?? null }] }, status as ContentfulStatusCode);
  }
  if (err instanceof ThrottledError) {
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json({ errors: [{ code: "TOOMANYREQUESTS", message: "too many failed authentication attempts; retry later", detail: null }] }, 429);
  }
  if (err instanceof AuthError) {
    c.header("WWW-Authenticate", challenge(c));
    const message = c.req.path.startsWith("/jwt/") ? TOKEN_SERVICE_DENIED : "authentication required";
    return c.json({ errors: [{ code: "UNAUTHORIZED", message, detail: null }] }, 401);
  }
  if (err instanceof AppError && err.code !== "internal") {
    const status = ERROR_STATUS[err.code];
    if (status === 401) c.header("WWW-Authenticate", challenge(c));
    return c.json({ errors: [{ code: OCI_CODE[err.code], message: err.message, detail: null }] }, status);
  }
  logUnexpectedError("registry", err, c);
  return c.json({ errors: [{ code: "UNKNOWN", message: "internal server error", detail: null }] }, 500);
}
