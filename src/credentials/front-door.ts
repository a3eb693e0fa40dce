import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { getDb } from "../db/client";
import { DEFAULT_RESOURCE, audienceAdmits } from "../domain/resources";
import type { AppEnv, Bindings } from "../env";
import { clientAddress } from "../http/client-address";
import { countBearerFailure } from "./bearer-throttle";
import { countAddressFailure } from "./failed-auth-throttle";
import { isDeployTokenSecret, resolveDeployToken } from "./deploy-token";
import { checkProof, requireBinding } from "./dpop-binding";
import { isDpopError, type VerifiedProof } from "./dpop-proof";
import { currentNonce } from "./dpop-nonce";
import { checkPatKeyProof, patNeedsKeyProof } from "./pat-key-proof";
import { AuthError, noUserError } from "./errors";
import { hasAuthorizationHeader, presentedCredential, type CredentialSource } from "./extract";
import type { Defer } from "./kind";
import { kindOf } from "./kinds";
import type { Caller } from "./principal";
import { requireScopes } from "./resolve";
import { applySudo, sudoIdentifier } from "./sudo";
import { formText } from "../http/form-text";

/**
 * The front door (DESIGN.md, "One front door"): the one way a request's credential becomes a
 * caller. A family describes its door (which places it reads, which kinds it accepts, which
 * throttle bucket counts its failures, whether Sudo applies, which scopes it needs, how a refusal
 * renders); `admit` does the rest the same way for every family: read, resolve through this layer,
 * count a failure, apply Sudo, check scopes. Its cost is the credential's own storage hop and
 * nothing more: failures alone touch the throttle.
 */
export type AcceptedKind = "personal_access_token" | "oauth" | "deploy_token" | "application";

/** Who a request acts for, on c.var.caller (defined in ./principal.ts, which src/env.ts names). */
export type { Caller };

export interface Door {
  /** Places the credential may come from, in order of precedence. */
  sources: readonly CredentialSource[];
  accepts: readonly AcceptedKind[];
  /** Without a credential the caller is anonymous; otherwise AuthError("missing"). */
  anonymous?: boolean;
  /**
   * An Authorization header that yields no credential of the accepted places is a failed attempt
   * (the registry's token service), rather than no credential at all.
   */
  authorizationIsAttempt?: boolean;
  /**
   * Which throttle counts a failed credential (docs/security.md, Throttle): tokens sent as tokens
   * count in failed_bearer; logins sent as HTTP Basic (git, /jwt/auth) in failed_auth, with the
   * audit row of a ban naming `method`.
   */
  failures: { bucket: "failed_bearer" } | { bucket: "failed_auth"; method: string };
  /**
   * A valid token of a kind this door does not accept: when set, the token is resolved and this
   * error explains what to use instead (not counted: the token is genuine); otherwise such a
   * token is a failed credential like any other.
   */
  notAccepted?: (kind: string) => Error;
  /** GitLab's Sudo header applies (REST, GraphQL). */
  sudo?: boolean;
  /** Scopes the principal must hold (any one suffices). */
  scopes?: readonly string[];
  /**
   * The door answers about the token itself (token info), not a resource: the RFC 8707 audience
   * check does not apply, since a token bound to any of this service's resources may ask what it is.
   */
  describesToken?: boolean;
  /**
   * A `dpop_enabled` user's PAT is taken here without a DPoP proof: GitLab asks for the proof on API
   * requests only (REST, GraphQL, the package registry under /api/v4), not on git over HTTP nor on
   * /jwt/auth, whose clients send no per-request headers (docs/oauth.md).
   */
  patKeyProofExempt?: true;
}

export interface Admission {
  env: Bindings;
  req: Request;
  defer: Defer;
  /** The form body, for doors that read `form`. */
  form?: URLSearchParams | null;
  /**
   * Given for a safe method (nothing changes before the answer): the DPoP replay verdict is handed
   * here instead of awaited, and the caller awaits it before its answer leaves (frontDoor).
   */
  replayVerdictLater?: (verdict: Promise<void>) => void;
}

/**
 * The caller of a request through `door`; throws AuthError, ScopeError, ThrottledError or Sudo's
 * AppError, which the family's renderer (its onError) answers in its shape.
 */
export async function admit(door: Door, a: Admission): Promise<Caller> {
  const presented = presentedCredential(a.req, door.sources, a.form);
  if (!presented) {
    if (door.authorizationIsAttempt && hasAuthorizationHeader(a.req)) return refuse(door, a, new AuthError("invalid"));
    if (door.anonymous) return { kind: "anonymous" };
    throw new AuthError("missing");
  }
  let caller: Caller;
  try {
    // RFC 9449: a proof sent with the DPoP scheme is verified and used up beside the token's own
    // hop, not before or after it (dpop-binding.ts); the binding is compared once both answered.
    const check = checkProof(a.env, a.req, presented);
    let proof: VerifiedProof | null;
    [caller, proof] = await Promise.all([resolveCaller(door, a, presented.secret, presented.username), check?.proof ?? null]);
    bindingHolds(caller, proof);
    if (check && a.replayVerdictLater) a.replayVerdictLater(check.used.catch((err: unknown) => (err instanceof AuthError ? refuse(door, a, err) : Promise.reject(err))));
    else if (check) await check.used;
    // GitLab's DPoP for personal access tokens: a user who turned it on sends a proof signed by one
    // of their SSH signing keys with every PAT request (pat-key-proof.ts); after the token's hop,
    // and only for such users, since the key is found by the proof's kid among the token user's keys.
    if (caller.kind === "user" && !door.patKeyProofExempt && patNeedsKeyProof(caller.principal)) {
      await checkPatKeyProof(a.env, a.req, caller.principal, presented.secret);
    }
  } catch (err) {
    // A request for a nonce is the protocol's normal first round, not a failed credential.
    if (isDpopError(err) && err.dpop.error === "use_dpop_nonce") throw err;
    if (err instanceof AuthError) return refuse(door, a, err);
    throw err;
  }
  if (caller.kind === "application") {
    if (!door.describesToken && !audienceHolds(caller.application.resource, a.req)) throw new AuthError("invalid");
    // A token that acts for no user (client_credentials): only doors that serve applications take it.
    if (!door.accepts.includes("application")) throw noUserError();
    if (door.scopes) requireScopes(caller.application, door.scopes);
    return caller;
  }
  if (caller.kind !== "user") return caller;
  // RFC 8707: a token bound to a narrower resource is refused elsewhere (genuine, so not counted).
  if (!door.describesToken && !audienceHolds(caller.principal.resource ?? DEFAULT_RESOURCE, a.req)) throw new AuthError("invalid");
  let principal = caller.principal;
  // Without a Sudo header or parameter the principal is the token's: nothing else is built for it
  // (the database handle, the client address and the path are on every REST request's path).
  const sudo = door.sudo ? sudoIdentifier(a.req) : null;
  if (sudo !== null) {
    principal = await applySudo(getDb(a.env.DB), principal, sudo, {
      ip: clientAddress(a.req, a.env),
      method: a.req.method,
      path: new URL(a.req.url).pathname,
      defer: a.defer,
    });
  }
  if (door.scopes) requireScopes(principal, door.scopes);
  return { ...caller, principal };
}

/**
 * RFC 8707: the token's resource admits the request's path. A token bound to the whole service (the
 * default, most tokens) admits every path, so the URL is parsed only for a narrower resource.
 */
function audienceHolds(resource: string, req: Request): boolean {
  return resource === DEFAULT_RESOURCE || audienceAdmits(resource, new URL(req.url).pathname);
}

/** The token's key binding and the request's proof agree (deploy tokens are never bound). */
function bindingHolds(caller: Caller, proof: VerifiedProof | null): void {
  if (caller.kind === "user") requireBinding(caller.principal.dpopJkt, proof);
  else if (caller.kind === "application") requireBinding(caller.application.dpopJkt, proof);
  else if (proof) requireBinding(null, proof);
}

async function resolveCaller(door: Door, a: Admission, secret: string, login: string | null): Promise<Caller> {
  if (isDeployTokenSecret(secret)) {
    if (!door.accepts.includes("deploy_token")) throw new AuthError("invalid");
    return { kind: "deploy_token", token: await resolveDeployToken(a.env, login, secret) };
  }
  const kind = kindOf(secret);
  if (!kind) throw new AuthError("invalid");
  if (!door.accepts.includes(kind.name as AcceptedKind)) {
    if (!door.notAccepted) throw new AuthError("invalid");
    await kind.resolve(a.env, secret);
    throw door.notAccepted(kind.name);
  }
  const principal = await kind.resolve(a.env, secret, a.defer);
  if (principal.kind === "application") return { kind: "application", application: principal };
  return { kind: "user", principal, login };
}

/** Counts the failure in the door's bucket; throws ThrottledError once the address is banned, else `err`. */
async function refuse(door: Door, a: Admission, err: AuthError): Promise<never> {
  const ip = clientAddress(a.req, a.env);
  if (door.failures.bucket === "failed_bearer") await countBearerFailure(a.env, ip);
  else await countAddressFailure(a.env, { ip }, door.failures.method);
  throw err;
}

/**
 * The door as Hono middleware: sets c.var.caller (and c.var.principal for a user); a refusal is
 * thrown to the family's onError, its one renderer.
 */
export function frontDoor(door: Door) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // RFC 9449 §11.1 off the serial path for a safe method (RFC 9110 §9.2.1): the route runs while
    // the proof's jti is checked, and its answer waits for the verdict; a replay replaces it with
    // the refusal (thrown to onError). Any other method waits for the verdict before the route.
    let replayVerdict: Promise<void> | null = null;
    const later = SAFE_METHODS.has(c.req.method) ? (v: Promise<void>) => void (replayVerdict = v) : undefined;
    const caller = await admitRequest(c, door, later);
    // RFC 9449 §9: a DPoP client is handed the current nonce with every answer (memoised per
    // window), so it holds the next window's nonce before its own stops being accepted.
    if (c.req.raw.headers.has("dpop")) c.header("DPoP-Nonce", await currentNonce(c.env));
    c.set("caller", caller);
    if (caller.kind === "user") c.set("principal", caller.principal);
    try {
      await next();
    } finally {
      if (replayVerdict) await replayVerdict;
    }
  });
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The door for a handler that cannot be wrapped in middleware (git's per-path handlers). */
export async function admitRequest(c: Context<AppEnv>, door: Door, replayVerdictLater?: Admission["replayVerdictLater"]): Promise<Caller> {
  const form = door.sources.includes("form") ? await formBody(c) : null;
  return admit(door, { env: c.env, req: c.req.raw, defer: (p) => c.executionCtx.waitUntil(p), form, replayVerdictLater });
}

/** RFC 6750 §2.2: a form-encoded POST body; Hono caches it, so the route may read it again. */
async function formBody(c: Context<AppEnv>): Promise<URLSearchParams | null> {
  if (c.req.method !== "POST" || !(c.req.header("content-type") ?? "").includes("application/x-www-form-urlencoded")) return null;
  return new URLSearchParams(await formText(c.req));
}
