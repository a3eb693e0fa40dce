import { passwordExpired } from "../services/accounts/password-expiry";
import type { Context } from "hono";
import { getConfig } from "../config";
import type { ApplicationRow } from "../db/applications";
import { getDb } from "../db/client";
import { MAX_PENDING_QUERY_LENGTH, findPendingAuthorization, savePendingAuthorization } from "../db/pending-authorizations";
import type { AppEnv } from "../env";
import { gate } from "../http/gate";
import { pageApp, pageVisit } from "./page-door";
import type { UserRow } from "../db/users";
import { listAuthorizedApplications } from "../services/authorizations";
import { afterReauthentication, decidePrompt } from "./oidc/prompt";
import { subjectClaims } from "./oidc/claims";
import { checkAuthorizeRequest, clientRedirect, type AuthorizeCheck, type AuthorizeRequest, type Query } from "./authorize-request";
import { AuthorizeErrorPage, ConsentPage } from "./consent-page";
import { DESCRIPTIONS, OAuthError } from "./errors";
import { findAuthorizeClient, storeDocumentClient } from "./client-metadata/resolve";
import { AppError } from "../domain/errors";
import { authorizationParams, type ParamsSource } from "./authorize-params-source";
import { issueAccessOnly, issueCode, tokenResponse } from "./issue";
import { issuerOf } from "./issuer";
import { clientAddress } from "../http/client-address";
import { logUnexpectedError } from "../observability/error-log";

/**
 * GET /oauth/authorize and the consent decision (POST /oauth/authorize), behind a page door open to
 * anyone (the endpoint decides itself when to send a person to sign in: OIDC's prompt and max_age),
 * which checks the consent form's CSRF token and Origin. Never CORS-enabled and never framed
 * (frame-ancestors 'none', X-Frame-Options: DENY). The consent form redirects to another site, so
 * its CSP leaves form-action open.
 */
const routes = pageApp<AppEnv>({ enter: "anyone", formAction: false });
/** The authorize endpoint's error renderer: an HTML page, since a person's browser is on it. */
export async function renderAuthorizeError(err: Error, c: Context): Promise<Response> {
  const refusal = pageVisit(c).refusal(err);
  if (!refusal) logUnexpectedError("oauth_authorize", err, c);
  const { status, message } = refusal ?? { status: 500, message: "Something went wrong. Try again." };
  return pageVisit(c).render("Authorization error", <AuthorizeErrorPage error={status === 403 ? "Forbidden" : "Error"} description={message} />, status);
}
routes.onError(renderAuthorizeError);

async function check(c: Context<AppEnv>, q: Query, repeated: readonly string[], pushed: boolean) {
  const clientId = q("client_id");
  let app: ApplicationRow | null = null;
  if (clientId && !repeated.includes("client_id")) {
    try {
      app = await findAuthorizeClient(c.env, clientId, clientAddress(c.req.raw, c.env));
    } catch (e) {
      // A Client ID Metadata Document that was refused: shown, never redirected (its redirect URIs are unknown).
      if (e instanceof OAuthError) return { kind: "show_error", error: "invalid_client", description: e.description } satisfies AuthorizeCheck;
      // Over the address's throttle of document fetches: the error page, 429 with Retry-After.
      if (e instanceof AppError && e.code === "rate_limited") c.header("Retry-After", String(e.details.retryAfterSeconds ?? 60));
      throw e;
    }
  }
  return checkAuthorizeRequest(q, app, {
    allowInsecureRedirects: getConfig(c.env).allowInsecureRedirects,
    implicitRemoved: gate(c).isRemoved("oauth-implicit-grant"),
    repeated,
    issuer: issuerOf(c),
    pushed,
  });
}

/** Names that occur more than once in a list of pairs. */
function repeatedNames(pairs: Iterable<[string, unknown]>): string[] {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const [k] of pairs) (seen.has(k) ? out : seen).add(k);
  return [...out];
}

/** An invalid request: shown when client or redirect_uri is bad, else redirected back with the error. */
async function refuse(c: Context<AppEnv>, result: Exclude<AuthorizeCheck, { kind: "ok" }>, status: 302 | 303): Promise<Response> {
  if (result.kind === "show_error") return pageVisit(c).render("Authorization error", <AuthorizeErrorPage error={result.error} description={result.description} />, 400);
  const { redirectUri, fragment, error, description, state } = result;
  return c.redirect(clientRedirect(redirectUri, { error, error_description: description, state, iss: issuerOf(c) }, fragment), status);
}

/**
 * Approval: a code (query) or, below 15.0, an access token (fragment). A document client's
 * application is stored now, the first time a person approves it (docs/agents.md).
 */
async function approve(c: Context<AppEnv>, request: AuthorizeRequest, user: UserRow, status: 302 | 303): Promise<Response> {
  const iss = issuerOf(c);
  const userId = user.id;
  const r = { ...request, app: await storeDocumentClient(c.env, request.app, { userId, ip: clientAddress(c.req.raw, c.env) }) };
  if (r.responseType === "code") {
    // With openid, the id_token's claims are recorded now, so the code exchange signs without reading D1.
    const [authTime, claims, sid] = await Promise.all([pageVisit(c).authTime(), r.scopes.includes("openid") ? subjectClaims(c.env, iss, user, r.scopes) : null, pageVisit(c).sid()]);
    const oidc = { nonce: r.oidc.nonce, authTime: authTime ?? Date.now(), claims };
    const code = await issueCode(c.env, { app: r.app, userId, scopes: r.scopes, redirectUri: r.redirectUri, challenge: r.codeChallenge, oidc, resource: r.resource, dpopJkt: r.dpopJkt, sid, endsWithSession: !r.offlineAccess });
    return c.redirect(clientRedirect(r.redirectUri, { code, state: r.state, iss }, false), status);
  }
  const { token, family } = await issueAccessOnly(c.env, { app: r.app, userId, scopes: r.scopes, grantType: "implicit", ip: clientAddress(c.req.raw, c.env), user, resource: r.resource });
  const body = tokenResponse(family, { access: token }, family.accessCreatedAt, { createdAt: false });
  if (body.expires_in === undefined) gate(c).markDeprecated("oauth-tokens-without-expiry");
  return c.redirect(
    clientRedirect(
      r.redirectUri,
      { access_token: body.access_token, token_type: body.token_type, expires_in: body.expires_in?.toString(), scope: body.scope, state: r.state, iss },
      true,
    ),
    status,
  );
}

/** A stored pending request that came from a pushed one (RFC 9126) starts with this line. */
const PUSHED_MARK = "pushed\n";

/**
 * The request's parameters: its own query (or the pushed request or request object it names:
 * authorize-params-source.ts), or the stored request that `?pending=<id>` (alone) names, when
 * coming back from sign-in (docs/oauth.md, Pending requests).
 */
async function authorizeQuery(c: Context<AppEnv>): Promise<ParamsSource | null> {
  const params = new URL(c.req.url).searchParams;
  const pending = params.get("pending");
  if (pending === null || [...params.keys()].length !== 1) return authorizationParams(c, params);
  const stored = await findPendingAuthorization(getDb(c.env.DB), pending);
  if (stored === null) return null;
  const pushed = stored.startsWith(PUSHED_MARK);
  return { ok: true, params: new URLSearchParams(pushed ? stored.slice(PUSHED_MARK.length) : stored), pushed };
}

routes.get("/authorize", async (c) => {
  const source = await authorizeQuery(c);
  if (!source) {
    const description = "This authorization request has expired or is unknown. Start again from the application.";
    return pageVisit(c).render("Authorization error", <AuthorizeErrorPage error="invalid_request" description={description} />, 400);
  }
  if (!source.ok) return pageVisit(c).render("Authorization error", <AuthorizeErrorPage error={source.error} description={source.description} />, 400);
  const { params, pushed } = source;
  const q: Query = (n) => params.get(n) ?? undefined;
  const result = await check(c, q, repeatedNames(params), pushed);
  if (result.kind !== "ok") return refuse(c, result, 302);
  const r = result.request;
  if (r.responseType === "token") gate(c).markDeprecated("oauth-implicit-grant");
  const user = await pageVisit(c).user();
  return carryOutPrompt(c, r, user, params, pushed);
});

/**
 * The sign-in redirect: the request waits server-side and the redirect carries only its id, so a
 * long authorize URL survives sign-in (issue 8, item 12).
 */
async function signInFirst(c: Context<AppEnv>, r: AuthorizeRequest, params: URLSearchParams, pushed: boolean, page = "/users/sign_in"): Promise<Response> {
  // A pushed request's URN was used up: the parameters themselves wait, marked as pushed.
  const query = (pushed ? PUSHED_MARK : "") + params.toString();
  if (query.length > MAX_PENDING_QUERY_LENGTH) {
    return refuse(c, { kind: "redirect_error", redirectUri: r.redirectUri, fragment: r.responseType === "token", error: "invalid_request", description: "The authorization request is too long.", state: r.state }, 302);
  }
  const id = await savePendingAuthorization(getDb(c.env.DB), query);
  return c.redirect(`${page}?redirect_to=${encodeURIComponent(`/oauth/authorize?pending=${id}`)}`, 302);
}

/** Sign in, sign in again, approve at once, an error, or the consent page (OIDC prompt and max_age; src/oauth/oidc/prompt.ts). */
async function carryOutPrompt(c: Context<AppEnv>, r: AuthorizeRequest, user: UserRow | null, params: URLSearchParams, pushed: boolean): Promise<Response> {
  // A password an administrator set must be replaced before anything else (GitLab's
  // check_password_expiration); the request waits, as it does for sign-in.
  if (user && passwordExpired(user)) return signInFirst(c, r, params, pushed, "/profile/password/new");
  const decision = decidePrompt(r.oidc, {
    signedIn: user !== null,
    authTime: await pageVisit(c).authTime(),
    now: Date.now(),
    // Trusted (first-party) applications skip the consent page (GitLab).
    trusted: r.app.trusted,
    previouslyAuthorized: user !== null && r.oidc.prompt.includes("none") && (await coversScopes(c, user.id, r)),
  });
  switch (decision.kind) {
    case "sign_in":
      return signInFirst(c, r, params, pushed);
    case "reauthenticate":
      await pageVisit(c).endSession();
      return signInFirst(c, r, afterReauthentication(params), pushed);
    case "error":
      return refuse(c, { kind: "redirect_error", redirectUri: r.redirectUri, fragment: r.responseType === "token", error: decision.error, description: decision.description, state: r.state }, 302);
    case "approve":
      return approve(c, r, user!, 302);
    case "consent":
      return pageVisit(c).render("Authorize application", <ConsentPage request={r} username={user!.username} csrf={await pageVisit(c).csrfToken()} />);
  }
}

/** prompt=none: the person already authorized this application for every scope asked. */
async function coversScopes(c: Context<AppEnv>, userId: number, r: AuthorizeRequest): Promise<boolean> {
  const granted = (await listAuthorizedApplications(c.env, userId)).find((a) => a.application.id === r.app.id);
  return granted !== undefined && r.scopes.every((s) => granted.scopes.includes(s));
}

routes.post("/authorize", async (c) => {
  // all: a repeated field arrives as an array, so that it can be refused (RFC 6749 §3.1).
  const body = await c.req.parseBody({ all: true });
  const q: Query = (n) => (typeof body[n] === "string" ? (body[n] as string) : undefined);
  // The consent form is this server's own page (CSRF-protected), echoing a request already
  // admitted by GET, pushed or not (docs/oauth.md, Pushed authorization requests).
  const result = await check(c, q, Object.keys(body).filter((k) => Array.isArray(body[k])), true);
  if (result.kind !== "ok") return refuse(c, result, 303);
  const r = result.request;
  if (r.responseType === "token") gate(c).markDeprecated("oauth-implicit-grant");
  const user = await pageVisit(c).user();
  if (!user) return c.redirect(`/users/sign_in`, 303);
  if (q("decision") !== "approve") {
    return c.redirect(
      clientRedirect(r.redirectUri, { error: "access_denied", error_description: DESCRIPTIONS.access_denied, state: r.state, iss: issuerOf(c) }, r.responseType === "token"),
      303,
    );
  }
  return approve(c, r, user, 303);
});

export default routes;
