import type { UserRow } from "../db/users";
import { DEFAULT_RESOURCE, resourceCovers } from "../domain/resources";

/**
 * The records and results of a grant's token family (src/durable/token-family.ts), and the rules
 * about the user that every issuance applies; apart from the Durable Object so the Worker side
 * imports them without the class.
 */
export interface CodeRecord {
  hash: string;
  expiresAt: number;
  usedAt: number | null;
  /** RFC 9449 §10: the `dpop_jkt` of the authorization request; the exchange's proof must match it. */
  dpopJkt?: string | null;
}

export interface AccessRecord {
  hash: string;
  createdAt: number;
  /** Null: the token does not expire (below 15.0, applications without "Expire access tokens"). */
  expiresAt: number | null;
  /** Set on first validation: a used pair ends the grace window of the previous refresh token. */
  used: boolean;
  /** RFC 9449: the thumbprint of the key this access token is bound to; absent: a bearer token. */
  jkt?: string | null;
}

export interface FamilyState {
  id: string;
  userId: number;
  applicationId: number | null;
  applicationUid: string | null;
  grantType: GrantType;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
  /** The access-token lifetime that applies to this family (used to fill a missing expiry from 15.0). */
  ttlSeconds: number;
  /** The application's "Expire access tokens" when the grant was made (password grants: true). */
  expiring: boolean;
  redirectUri: string | null;
  /** S256 code challenge of the authorization request; null without PKCE. */
  challenge: string | null;
  code: CodeRecord | null;
  access: AccessRecord | null;
  refreshHash: string | null;
  /** The last rotation: the replaced refresh token's hash and the new pair sealed under its key. */
  grace: { prevRefreshHash: string; until: number; sealed: string } | null;
  /**
   * The user row as last read from D1, without password hash and two-factor secrets, and when it
   * was read: lets an API request cost one storage hop (docs/oauth.md, One hop).
   */
  user?: UserSnapshot | null;
  /**
   * OpenID Connect facts of the authorization (OIDC Core §2): the nonce the client sent and when
   * the person had authenticated (ms). Every id_token of the family carries that auth_time.
   */
  oidc?: OidcFacts | null;
  /** A public client may refresh without PKCE (device grants, RFC 8628 has no PKCE). */
  publicRefresh?: boolean;
  /**
   * RFC 8707: the resource the person authorized (a path of src/domain/resources.ts; absent in
   * grants made before resources: the whole service), and the one the current access token is
   * bound to, which a token request may narrow within the first.
   */
  resource?: string;
  accessResource?: string;
  /**
   * RFC 9449 §5: a refresh token issued to a public client through DPoP is bound to the proof's
   * key (its thumbprint here) and refreshes only with a proof of that key.
   */
  refreshJkt?: string | null;
  /** RFC 8693: the actor of a delegated token (token exchange with an actor_token); shown by introspection and audited. */
  act?: ActorClaim | null;
}

/** The grant that started a family (the D1 directory's grant_type too). */
export type GrantType = "authorization_code" | "implicit" | "password" | "device_code" | "client_credentials" | "token_exchange" | "jwt_bearer";

/**
 * RFC 8693 §4.1 `act`: who acts for the token's subject, nested when a delegated token is
 * delegated again (the innermost is the earliest actor).
 */
export interface ActorClaim {
  /** The actor's subject (a user id, as text, or a client id). */
  sub: string;
  /** The client the actor's token was issued to, when it had one. */
  client_id?: string;
  act?: ActorClaim;
}

export interface OidcFacts {
  nonce: string | null;
  authTime: number;
  /** The id_token's claims about the person as of the approval (code grants with openid). */
  claims?: Record<string, string | boolean | string[]> | null;
  /**
   * The authorising browser session's sid, for a client that registered
   * backchannel_logout_session_required (Back-Channel Logout §2.1): every id_token of the family carries it.
   */
  sid?: string | null;
}

export interface NewPair {
  accessHash: string;
  refreshHash: string | null;
  createdAt: number;
}

/**
 * The user as a family keeps it, read at `at` (ms): the row and the cutoff of pending changes that
 * end the family's grants (src/db/grant-holder.ts; absent in snapshots kept before cutoffs: none).
 */
export interface UserSnapshot {
  row: UserRow;
  at: number;
  grantsEndedBefore?: number | null;
}

export type FamilyView = Pick<
  FamilyState,
  "id" | "userId" | "applicationId" | "applicationUid" | "scopes" | "grantType" | "ttlSeconds"
> & {
  accessCreatedAt: number;
  accessExpiresAt: number | null;
  /** When the grant was made: a pending change's cutoff ends grants made at or before it (src/db/grant-holder.ts). */
  createdAt: number;
  user?: UserSnapshot | null;
  oidc?: OidcFacts | null;
  /** The current access token's resource (its audience), a path of src/domain/resources.ts. */
  resource: string;
  /** RFC 9449: the current access token's key thumbprint; null for a bearer token. */
  jkt: string | null;
  act?: ActorClaim | null;
};

export type ExchangeResult =
  | { ok: true; family: FamilyView }
  | { ok: false; error: "invalid_grant" | "invalid_client" | "invalid_target"; reason: string; reuse?: boolean; sinceVouched?: SinceVouched };

/** A rotation that needs the user row from D1 first (no snapshot young enough); nothing changed. */
export interface UserNeeded {
  ok: false;
  error: "user_needed";
  /** Whose grant it is besides the user: the caller reads the cutoff of both (src/db/grant-holder.ts). */
  applicationId: number | null;
}

export type RotateResult =
  /** `sinceVouched`: how long ago the replaced access token may last have been vouched for (the caller waits out the rest of L). */
  | { ok: true; kind: "rotated"; family: FamilyView; sinceVouched: SinceVouched }
  | { ok: true; kind: "grace"; sealed: string; family: FamilyView }
  /** A replay (`reuse`) revoked the family: `sinceVouched` as for a revocation (the caller waits out the rest of L). */
  | { ok: false; error: "invalid_grant" | "invalid_client" | "invalid_target"; reason: string; reuse?: boolean; family?: FamilyView; sinceVouched?: SinceVouched }
  | UserNeeded;

export type ValidateResult =
  | { ok: true; family: FamilyView }
  | { ok: false; reason: "invalid" | "expired" | "revoked" };

export type RevokeResult = "unknown" | "foreign" | "revoked";

/**
 * What a credential's object answers when access is taken away: how long ago (ms, on its own
 * clock) it last vouched for the credential, or null when it never has, so nothing can be
 * remembered anywhere (src/credentials/validation-cache.ts waits out the rest of the bound).
 */
export type SinceVouched = number | null;

/**
 * DESIGN, Blocked and deactivated users: no grant issues a token to a user who is not active. The
 * one rule every issuance applies (code exchange and refresh here, atomically with the issuance;
 * device, password and implicit grants in issueAccessOnly).
 */
export function mayReceiveTokens(user: Pick<UserRow, "state"> | null | undefined): boolean {
  return user?.state === "active";
}

/** The user row as the family keeps it: without password hash and two-factor secrets. */
export function userSnapshot(row: UserRow): UserRow {
  return { ...row, passwordHash: "", otpSecretEnc: null, otpBackupCodeHashes: "[]" };
}

export interface QueuedAudit {
  action: "token_refreshed";
  authorId: number;
  entityId: string;
  details: Record<string, unknown>;
  ip: string | null;
  createdAt: number;
}

/**
 * RFC 8707 §2.2: the new access token's resource: the one requested when it lies within what
 * the person authorized (narrowing), else refused; without one, the authorized resource.
 */
export function bindResource(s: FamilyState, requested: string | null): boolean {
  const granted = s.resource ?? DEFAULT_RESOURCE;
  if (requested !== null && !resourceCovers(granted, requested)) return false;
  s.accessResource = requested ?? granted;
  return true;
}

/**
 * The new pair; with a DPoP proof (`jkt`) the access token is bound to its key, and so is the
 * refresh token of a public client (RFC 9449 §5); a confidential client's refresh token stays
 * unbound (its secret already constrains it), so its binding never changes here.
 */
export function setPair(s: FamilyState, pair: NewPair, forceExpiry: boolean, jkt: string | null = null, publicClient = false): void {
  const expiresAt = s.expiring || forceExpiry ? pair.createdAt + s.ttlSeconds * 1000 : null;
  s.access = { hash: pair.accessHash, createdAt: pair.createdAt, expiresAt, used: false, jkt };
  s.refreshHash = pair.refreshHash;
  if (publicClient && jkt && pair.refreshHash) s.refreshJkt = jkt;
}

/**
 * The checks of a code exchange before single use (DESIGN convention 4: client, redirect_uri,
 * PKCE), so that only a holder of the verifier (or secret) can trigger a replay's revocation.
 */
export function codeRequestRefusal(
  s: FamilyState,
  input: { applicationId: number; clientAuthenticated: boolean; redirectUri: string; verifierChallenge: string | null },
): ExchangeResult | null {
  const refuse = (reason: string): ExchangeResult => ({ ok: false, error: "invalid_grant", reason, reuse: false });
  if (s.applicationId !== input.applicationId) return refuse("code issued to another client");
  if (!input.clientAuthenticated && s.challenge === null) return { ok: false, error: "invalid_client", reason: "client secret required" };
  if (s.redirectUri !== input.redirectUri) return refuse("redirect_uri mismatch");
  if (s.challenge !== null && input.verifierChallenge === null) return refuse("code_verifier missing");
  if (s.challenge === null && input.verifierChallenge !== null) return refuse("code_verifier without challenge");
  if (s.challenge !== null && s.challenge !== input.verifierChallenge) return refuse("code_verifier mismatch");
  return null;
}
