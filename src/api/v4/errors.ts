import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../../credentials/errors";
import { isDpopError, dpopRefusalHeaders } from "../../credentials/dpop-proof";
import { AppError, codeOfStatus, ERROR_STATUS, gitlabMessage } from "../../domain/errors";
import { bearerChallenge } from "../../oauth/protected-resource";
import { ThrottledError, rateLimitHeaders } from "../../throttle";
import { logUnexpectedError } from "../../observability/error-log";

/** The REST family's wire error, with GitLab's exact body. Thrown by REST routes; rendered by renderApiError. */
export class ApiError extends AppError {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(codeOfStatus(status), typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : "");
    this.name = "ApiError";
  }
}

export const notFound = (what = "Not found") => new ApiError(404, { message: `404 ${what}` });
export const forbidden = () => new ApiError(403, { message: "403 Forbidden" });
export const badRequest = (message: string | Record<string, unknown>) => new ApiError(400, { message });
/** GitLab's form for a parameter that failed validation. */
export const invalidParam = (name: string, why: "is invalid" | "is missing" | string = "is invalid") =>
  new ApiError(400, { error: `${name} ${why}` });
export const conflict = (message: string | Record<string, unknown>) => new ApiError(409, { message });

const AUTH_DESCRIPTIONS: Record<string, string> = {
  expired: "Token is expired. You can either do re-authorization or token refresh.",
  revoked: "Token was revoked. You have to re-authorize from the user.",
};

/** The one place REST errors are rendered (DESIGN, convention 2). */
export function renderApiError(err: Error, c: Context): Response {
  c.header("Cache-Control", "no-store");
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json(err.body, err.status);
  }
  if (err instanceof ThrottledError) {
    // GitLab's Rack::Attack answer: plain 429 with its rate-limit headers.
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json({ message: "429 Too Many Requests - Retry later" }, 429);
  }
  if (isDpopError(err)) {
    // RFC 9449 §7.1, §9: a DPoP refusal carries the DPoP challenge (and the nonce to use).
    for (const [k, v] of Object.entries(dpopRefusalHeaders(err))) c.header(k, v);
    return c.json({ error: err.dpop.error, error_description: err.dpop.description }, 401);
  }
  if (err instanceof AuthError) {
    // RFC 9728 §5.1: every 401 names the protected resource metadata, which MCP clients follow.
    const description = AUTH_DESCRIPTIONS[err.reason];
    if (description) {
      c.header("WWW-Authenticate", bearerChallenge(c, { error: "invalid_token", description }));
      return c.json({ error: "invalid_token", error_description: description }, 401);
    }
    c.header("WWW-Authenticate", bearerChallenge(c));
    return c.json({ message: "401 Unauthorized" }, 401);
  }
  if (err instanceof ScopeError) {
    const scope = err.accepted.join(" ");
    c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope }));
    return c.json(
      {
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope,
      },
      403,
    );
  }
  if (err instanceof AppError && err.code !== "internal") {
    const status = ERROR_STATUS[err.code];
    // GitLab's forms: a parameter's `{"error":"<param> <why>"}`, an attribute's validation
    // `{"message":{"<attribute>":["<why>"]}}`, else the helpers' message.
    if (err.details.param) return c.json({ error: `${err.details.param} ${err.message}` }, status);
    if (err.details.field) return c.json({ message: { [err.details.field]: [err.message] } }, status);
    return c.json({ message: gitlabMessage(err) }, status);
  }
  if (err instanceof HTTPException) {
    return c.json({ message: err.message || `${err.status}` }, err.status as ContentfulStatusCode);
  }
  logUnexpectedError("rest", err, c);
  return c.json({ message: "500 Internal Server Error" }, 500);
}
