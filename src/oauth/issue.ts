import { getConfig } from "../config";
import { recordIssuedFamilies, recordIssuedFamily } from "../services/token-families";
import type { ApplicationRow } from "../db/applications";
import type { UserRow } from "../db/users";
import { getDb } from "../db/client";
import { mayReceiveTokens, userSnapshot, type FamilyState, type FamilyView, type OidcFacts } from "../durable/token-family";
import type { ActorClaim } from "../durable/token-family-state";
import type { Bindings } from "../env";
import { OAuthError } from "./errors";
import { expiryForced } from "../credentials/oauth-access-token";
import { familyStub } from "../credentials/oauth-family";
import { insertFamilyRow, insertFamilyRowOnce } from "../db/oauth-grants";
import { NO_USER_ID, hashToken, mintAccessToken, mintCode, mintRefreshToken, newFamilyId } from "../credentials/oauth-token-format";
import { formatScopes } from "../domain/scopes";
import { DEFAULT_RESOURCE } from "../domain/resources";

/** Authorization codes live 10 minutes (DESIGN, /oauth/authorize; Doorkeeper's default). */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** The lifetime settings of a grant: the application's, or the configured default without one. */
function lifetime(env: Bindings, app: ApplicationRow | null): { ttlSeconds: number; expiring: boolean } {
  if (!app) return { ttlSeconds: getConfig(env).accessTokenTtlSeconds, expiring: true };
  return { ttlSeconds: app.accessTokenTtlSeconds, expiring: app.expireAccessTokens };
}

export interface TokenResponse {
  access_token: string;
  /** "DPoP" for a token bound to a key (RFC 9449 §5). */
  token_type: "bearer" | "DPoP";
  expires_in?: number;
  refresh_token?: string;
  scope: string;
  created_at?: number;
  /** OpenID Connect Core §3.1.3.3: with scope openid. */
  id_token?: string;
  /** RFC 8693 §2.2.1: the type of the token a token exchange or jwt-bearer grant issued. */
  issued_token_type?: string;
}

/** The spec's token response; expires_in is left out for a token without expiry (Doorkeeper). */
export function tokenResponse(
  family: Pick<FamilyView, "scopes" | "accessCreatedAt" | "accessExpiresAt" | "jkt">,
  tokens: { access: string; refresh?: string | null },
  now: number,
  opts: { createdAt: boolean },
): TokenResponse {
  const tokenType = family.jkt ? "DPoP" : "bearer";
  const body: TokenResponse = { access_token: tokens.access, token_type: tokenType, scope: formatScopes(family.scopes) };
  if (family.accessExpiresAt !== null) body.expires_in = Math.max(0, Math.round((family.accessExpiresAt - now) / 1000));
  if (tokens.refresh) body.refresh_token = tokens.refresh;
  if (opts.createdAt) body.created_at = Math.floor(family.accessCreatedAt / 1000);
  return body;
}

function baseState(
  env: Bindings,
  fid: string,
  app: ApplicationRow | null,
  userId: number,
  scopes: string[],
  grantType: FamilyState["grantType"],
  now: number,
): FamilyState {
  return {
    id: fid,
    userId,
    applicationId: app?.id ?? null,
    applicationUid: app?.uid ?? null,
    grantType,
    scopes,
    createdAt: now,
    revokedAt: null,
    ...lifetime(env, app),
    redirectUri: null,
    challenge: null,
    code: null,
    access: null,
    refreshHash: null,
    grace: null,
  };
}

/** Approval of a code request: a new family whose Durable Object holds the code's hash. */
export async function issueCode(
  env: Bindings,
  input: {
    app: ApplicationRow;
    userId: number;
    scopes: string[];
    redirectUri: string;
    challenge: string | null;
    oidc?: OidcFacts | null;
    /** RFC 8707: the resource the person authorized (a path of src/domain/resources.ts). */
    resource: string;
    /** RFC 9449 §10: the authorization request's dpop_jkt; the exchange must prove that key. */
    dpopJkt?: string | null;
    /**
     * The sid of the browser session that approved (sessions.sid). An OpenID Connect grant records
     * it in the directory, so ending that session finds it (src/services/logout/); its id_tokens
     * carry it when the client registered backchannel_logout_session_required.
     */
    sid?: string | null;
    /** False when the request asked for offline_access: the grant outlives its session's sign-out. */
    endsWithSession?: boolean;
  },
): Promise<string> {
  const now = Date.now();
  const fid = newFamilyId();
  const code = mintCode(input.userId, fid);
  const state = baseState(env, fid, input.app, input.userId, input.scopes, "authorization_code", now);
  state.redirectUri = input.redirectUri;
  state.challenge = input.challenge;
  const sid = input.scopes.includes("openid") ? (input.sid ?? null) : null;
  state.oidc = input.oidc ? { ...input.oidc, ...(sid && input.app.backchannelLogoutSessionRequired ? { sid } : {}) } : null;
  state.resource = input.resource;
  state.code = { hash: await hashToken(code), expiresAt: now + CODE_TTL_MS, usedAt: null, dpopJkt: input.dpopJkt ?? null };
  await Promise.all([
    familyStub(env, fid).init(state),
    insertFamilyRow(getDb(env.DB), {
      id: fid,
      applicationId: input.app.id,
      userId: input.userId,
      grantType: "authorization_code",
      scopes: formatScopes(input.scopes),
      status: "pending",
      createdAt: now,
      sid,
      endsWithSession: sid !== null && input.endsWithSession !== false,
    }),
  ]);
  return code;
}

/** A family's id and tokens, minted before anything is stored. */
export interface MintedIssue {
  fid: string;
  token: string;
  refresh: string | null;
  now: number;
}

export function mintAccessIssue(userId: number, withRefresh: boolean, now = Date.now()): MintedIssue {
  const fid = newFamilyId();
  return { fid, token: mintAccessToken(userId, fid), refresh: withRefresh ? mintRefreshToken(userId, fid) : null, now };
}

export interface AccessOnlyInput {
  app: ApplicationRow | null;
  userId: number;
  scopes: string[];
  grantType: "implicit" | "password" | "device_code" | "token_exchange" | "jwt_bearer";
  ip?: string | null;
  /** The user row, just read: its state is checked, and it seeds the family's user snapshot. */
  user: UserRow;
  /** Device grants: a refresh token too, and the OpenID Connect facts for id_tokens. */
  withRefresh?: boolean;
  oidc?: OidcFacts | null;
  /** RFC 8707: the resource the token is bound to (a path); null or absent: the whole service. */
  resource?: string | null;
  /** The latest the access token may expire (ms): a token exchange never outlives its subject token. */
  notAfter?: number | null;
  /** RFC 8693 §4.1: the actor of a delegated token. */
  act?: ActorClaim | null;
  /** More facts for the token_issued audit row (the subject token's family of an exchange ...). */
  audit?: Record<string, unknown>;
  /** RFC 9449: the thumbprint of the token request's DPoP proof key; the tokens are bound to it. */
  dpopJkt?: string | null;
  /**
   * Tokens minted beforehand (mintAccessIssue) and recorded before this call (a device code's
   * redemption): the issue is then idempotent, so a retry after a crash issues the same family once.
   */
  minted?: MintedIssue;
}

/**
 * A family that starts with its access token: the implicit grant and the password grant, without
 * a refresh token (spec: no refresh_token in the password-flow response), the device grant
 * (RFC 8628), with one, and the delegation grants (token exchange, jwt-bearer), without.
 */
export async function issueAccessOnly(env: Bindings, input: AccessOnlyInput): Promise<{ token: string; refresh: string | null; family: FamilyView }> {
  if (input.user.id !== input.userId || !mayReceiveTokens(input.user)) throw new OAuthError("invalid_grant");
  return startFamily(env, input);
}

/**
 * client_credentials (RFC 6749 §4.4): a family of the application alone, no user (NO_USER_ID in
 * the token, null in the directory), never a refresh token.
 */
export function issueApplicationToken(
  env: Bindings,
  input: { app: ApplicationRow; scopes: string[]; ip: string | null; resource: string | null; dpopJkt?: string | null },
): Promise<{ token: string; refresh: string | null; family: FamilyView }> {
  return startFamily(env, { ...input, userId: NO_USER_ID, user: null, grantType: "client_credentials" });
}

type FamilyInput = Omit<AccessOnlyInput, "user" | "grantType"> & { user: UserRow | null; grantType: AccessOnlyInput["grantType"] | "client_credentials" };

/** A new family's object state, directory row, token_issued audit and answer, built before anything is stored. */
async function newFamily(env: Bindings, input: FamilyInput) {
  const { fid, token, refresh, now } = input.minted ?? mintAccessIssue(input.userId, input.withRefresh ?? false);
  const state = baseState(env, fid, input.app, input.userId, input.scopes, input.grantType, now);
  const lifetimeEnd = state.expiring || expiryForced(env) ? now + state.ttlSeconds * 1000 : null;
  const notAfter = input.notAfter ?? null;
  const expiresAt = notAfter === null ? lifetimeEnd : Math.min(lifetimeEnd ?? notAfter, notAfter);
  const jkt = input.dpopJkt ?? null;
  state.access = { hash: await hashToken(token), createdAt: now, expiresAt, used: false, jkt };
  if (refresh) state.refreshHash = await hashToken(refresh);
  state.oidc = input.oidc ?? null;
  // A public device client has neither secret nor PKCE: its refresh token alone must do (RFC 8628 §5.6).
  state.publicRefresh = input.grantType === "device_code" && input.app !== null && !input.app.confidential;
  // RFC 9449 §5: a public client's refresh token is bound to the key as well.
  if (refresh && jkt && state.publicRefresh) state.refreshJkt = jkt;
  state.user = input.user ? { row: userSnapshot(input.user), at: now } : null;
  state.resource = input.resource ?? DEFAULT_RESOURCE;
  state.act = input.act ?? null;
  const row = {
    id: fid,
    applicationId: input.app?.id ?? null,
    userId: input.user ? input.userId : null,
    grantType: input.grantType,
    scopes: formatScopes(input.scopes),
    status: "active",
    createdAt: now,
  };
  const details = { grant_type: input.grantType, application_id: input.app?.id ?? null, scopes: input.scopes, ...(state.act ? { act: state.act } : {}), ...input.audit };
  const audit = { authorId: input.user ? input.userId : null, details, ip: input.ip ?? null };
  const issued: { token: string; refresh: string | null; family: FamilyView } = {
    token,
    refresh,
    family: {
      id: fid,
      userId: input.userId,
      applicationId: state.applicationId,
      applicationUid: state.applicationUid,
      scopes: input.scopes,
      grantType: input.grantType,
      ttlSeconds: state.ttlSeconds,
      createdAt: state.createdAt,
      accessCreatedAt: now,
      accessExpiresAt: expiresAt,
      oidc: state.oidc,
      resource: state.resource,
      jkt,
      act: state.act,
    },
  };
  return { state, row, audit, now, issued };
}

async function startFamily(env: Bindings, input: FamilyInput): Promise<{ token: string; refresh: string | null; family: FamilyView }> {
  const { state, row, audit, now, issued } = await newFamily(env, input);
  const db = getDb(env.DB);
  if (input.minted) {
    // A retry finds the object made (init answers false) and the rows written: nothing is doubled.
    await Promise.all([familyStub(env, row.id).init(state), insertFamilyRowOnce(db, row, { ...audit, createdAt: now })]);
  } else {
    await Promise.all([familyStub(env, row.id).init(state), recordIssuedFamily(db, row, audit)]);
  }
  return issued;
}

/**
 * `count` grants of one user and application at once, each a family started as issueAccessOnly
 * starts one (its own object, directory row and token_issued row): an import, or the fan-out
 * changes' tests at 1,000 grants (DESIGN, "Changes that finish"). The objects are started side by
 * side and the rows written in one D1 batch (recordIssuedFamilies) instead of a round trip each.
 */
export async function issueAccessOnlyMany(env: Bindings, input: Omit<AccessOnlyInput, "minted">, count: number): Promise<{ token: string; refresh: string | null; family: FamilyView }[]> {
  if (input.user.id !== input.userId || !mayReceiveTokens(input.user)) throw new OAuthError("invalid_grant");
  const made = await Promise.all(Array.from({ length: count }, () => newFamily(env, input)));
  await Promise.all([
    Promise.all(made.map((f) => familyStub(env, f.row.id).init(f.state))),
    recordIssuedFamilies(getDb(env.DB), made),
  ]);
  return made.map((f) => f.issued);
}
