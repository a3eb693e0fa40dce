import type { AuditActor } from "../db/audit";
import type { users } from "../db/schema/accounts";
import type { ActorClaim } from "../durable/token-family-state";

export type UserRow = typeof users.$inferSelect;

/** Who a request acts for, and with what, once its token has been validated. */
export interface Principal {
  kind: "personal_access_token" | "oauth";
  user: UserRow;
  scopes: string[];
  /** PAT id, or the OAuth token family id. */
  tokenId: string;
  /** The OAuth application's numeric id; null for personal access tokens. */
  applicationId: number | null;
  /** OAuth tokens: the application's client_id (null for tokens without one); what token info names. */
  applicationUid?: string | null;
  /** OAuth tokens: when the access token was issued (ms since the epoch); token info's created_at. */
  issuedAt?: number;
  /** Milliseconds since the epoch; null when the token does not expire. */
  expiresAt: number | null;
  /**
   * OAuth tokens: the resource the token is bound to (RFC 8707; a path of src/domain/resources.ts,
   * "" for the whole service). The front door admits the token only under that path.
   */
  resource?: string;
  /**
   * RFC 9449: the SHA-256 thumbprint (RFC 7638) of the key the token is bound to; absent for a
   * bearer token. The front door accepts a bound token only with a DPoP proof of that key.
   */
  dpopJkt?: string | null;
  /** Set when an administrator's token acts as `user` through the Sudo header (src/credentials/sudo.ts). */
  sudoFrom?: UserRow;
  /** RFC 8693 §4.1: the actor of a delegated OAuth token (token exchange with an actor_token); audited with every action. */
  act?: ActorClaim | null;
}

/**
 * A deploy token acts for its project or group, not for a user (GitLab). It is accepted by git
 * over HTTPS, the container registry's token service and the package registry, always with the
 * login it was created with (src/credentials/deploy-token.ts resolves it).
 */
export interface DeployTokenPrincipal {
  kind: "deploy_token";
  tokenId: number;
  username: string;
  scopes: string[];
  projectId: number | null;
  groupId: number | null;
}

/**
 * An OAuth access token issued to an application for itself (client_credentials, RFC 6749 §4.4):
 * it acts for no user. Routes that act for a user refuse it (noUserError, 403 with a message);
 * a door that serves applications says so (`accepts: ["application"]`).
 */
export interface ApplicationPrincipal {
  kind: "application";
  applicationId: number;
  /** The client_id. */
  applicationUid: string;
  scopes: string[];
  /** The OAuth token family id. */
  tokenId: string;
  expiresAt: number | null;
  /** When the access token was issued (ms since the epoch); token info's created_at. */
  issuedAt: number;
  /** The resource the token is bound to (RFC 8707; a path of src/domain/resources.ts). */
  resource: string;
  /** RFC 9449: the thumbprint of the key the token is bound to; null for a bearer token. */
  dpopJkt: string | null;
}

/**
 * Who a request acts for, on c.var.caller, as the front door admitted it
 * (src/credentials/front-door.ts). Here, with the principals, so that src/env.ts can name it
 * without importing the door.
 */
export type Caller =
  | { kind: "anonymous" }
  | { kind: "user"; principal: Principal; /** The Basic login sent with the token (git checks it), else null. */ login: string | null }
  | { kind: "deploy_token"; token: DeployTokenPrincipal }
  | { kind: "application"; application: ApplicationPrincipal };

/**
 * The actor of an audit row written for a request of this principal: the user it acts for and,
 * under Sudo, the administrator behind it. Every audit write of an authenticated action takes
 * its identities from here (docs/security.md, "Sudo").
 */
export function actorOf(principal: Principal, ip: string | null): AuditActor {
  return {
    id: principal.user.id,
    ip,
    ...(principal.sudoFrom ? { impersonatorId: principal.sudoFrom.id } : {}),
    ...(principal.act ? { act: { ...principal.act } } : {}),
  };
}
