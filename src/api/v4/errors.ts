import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../../credentials/errors";
import { SudoError } from "../../credentials/sudo";
import { NamespacePathError } from "../../domain/namespace-paths";
import { bearerChallenge } from "../../oauth/protected-resource";
import { ThrottledError, rateLimitHeaders } from "../../throttle";
import { logUnexpectedError } from "../../observability/error-log";

/** An error of the REST family, with GitLab's body. Thrown by routes; rendered by renderApiError. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(JSON.stringify(body));
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
  if (err instanceof NamespacePathError) {
    // GitLab's validation error of the attribute; its users API answers a taken username or email with 409.
    const status = err.reason === "taken" && err.field !== "path" ? 409 : 400;
    return c.json({ message: { [err.field]: [err.message] } }, status);
  }
  if (err instanceof ThrottledError) {
    // GitLab's Rack::Attack answer: plain 429 with its rate-limit headers.
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json({ message: "429 Too Many Requests - Retry later" }, 429);
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
  if (err instanceof SudoError) {
    // GitLab's exact messages (lib/api/helpers.rb, sudo!).
    return err.reason === "not_admin"
      ? c.json({ message: "403 Forbidden - Must be admin to use sudo" }, 403)
      : c.json({ message: `404 User with ID or username '${err.identifier}' Not Found` }, 404);
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
  if (err instanceof HTTPException) {
    return c.json({ message: err.message || `${err.status}` }, err.status as ContentfulStatusCode);
  }
  logUnexpectedError("rest", err, c);
  return c.json({ message: "500 Internal Server Error" }, 500);
}
