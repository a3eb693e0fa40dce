/**
 * The one error family (DESIGN.md, Conventions 1 and 2). Code below the routes throws an AppError
 * with a neutral code, a message meant for the client (never a secret, never request data that
 * the client did not send itself) and details; the renderer of the API family the path belongs to
 * (src/http/families.ts, src/app-errors.ts) maps it to its wire format. Routes do not catch errors
 * to translate them.
 *
 * The whole family, eight classes (docs/architecture.md, "Errors"):
 * - AppError: the base, and what everything without a family of its own throws;
 * - AuthError, ScopeError (src/credentials/errors.ts) and ThrottledError (src/throttle/): refusals
 *   at the front door, whose data (reason, accepted scopes, retry time) every renderer needs;
 * - OAuthError, ApiError, RegistryError, PluginError: errors that name their wire code exactly
 *   (RFC 6749 §5.2, GitLab's REST body, OCI distribution, Res.Code), thrown only inside their
 *   family; any other family still renders them through their neutral code.
 */

/** Neutral codes and the HTTP status each has wherever a family answers with HTTP statuses. */
export const ERROR_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ErrorDetails {
  /** The request parameter at fault: REST answers GitLab's `{"error":"<param> <message>"}`. */
  param?: string;
  /** The attribute at fault: REST answers GitLab's validation form `{"message":{"<field>":["<message>"]}}`. */
  field?: string;
  /** Why, as one word from the thrower's list, for callers and renderers that tell reasons apart. */
  reason?: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "AppError";
  }
}

/** The neutral code of a status (for the wire subclasses, which are built from a status). */
export function codeOfStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(ERROR_STATUS)) if (s === status) return code as ErrorCode;
  return status >= 500 ? "internal" : "invalid";
}

/** The reason of an AppError when it is one of `reasons` (a page picks its sentence by it); else null. */
export function reasonOf<R extends string>(err: unknown, reasons: readonly R[]): R | null {
  if (!(err instanceof AppError)) return null;
  const reason = err.details.reason;
  return typeof reason === "string" && (reasons as readonly string[]).includes(reason) ? (reason as R) : null;
}

/**
 * GitLab's message for an error (lib/api/helpers.rb: `not_found!`, `forbidden!`, `bad_request!`,
 * `conflict!`, `unprocessable_entity!`, `render_api_error!`), which REST and GraphQL both show.
 */
export function gitlabMessage(err: AppError): string {
  const m = err.message;
  switch (err.code) {
    case "invalid":
      return m ? `400 Bad request - ${m}` : "400 Bad request";
    case "unauthenticated":
      return "401 Unauthorized";
    case "forbidden":
      return m ? `403 Forbidden - ${m}` : "403 Forbidden";
    case "not_found":
      return `404 ${m || "Not found"}`;
    case "too_large":
      return "413 Request Entity Too Large";
    case "unsupported":
      return "415 Unsupported Media Type";
    case "rate_limited":
      return "429 Too Many Requests - Retry later";
    case "internal":
      return "500 Internal Server Error";
    case "bad_gateway":
      return "502 Bad Gateway";
    case "unavailable":
      return m ? `503 Service Unavailable - ${m}` : "503 Service Unavailable";
    case "conflict":
    case "unprocessable":
      return m;
  }
}
