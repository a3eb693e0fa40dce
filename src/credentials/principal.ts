import type { AuditActor } from "../db/audit";
import type { users } from "../db/schema/accounts";

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
  /** Milliseconds since the epoch; null when the token does not expire. */
  expiresAt: number | null;
  /**
   * OAuth tokens: the resource the token is bound to (RFC 8707; a path of src/domain/resources.ts,
   * "" for the whole service). The front door admits the token only under that path.
   */
  resource?: string;
  /** Set when an administrator's token acts as `user` through the Sudo header (src/credentials/sudo.ts). */
  sudoFrom?: UserRow;
}

/**
 * The actor of an audit row written for a request of this principal: the user it acts for and,
 * under Sudo, the administrator behind it. Every audit write of an authenticated action takes
 * its identities from here (docs/security.md, "Sudo").
 */
export function actorOf(principal: Principal, ip: string | null): AuditActor {
  return { id: principal.user.id, ip, ...(principal.sudoFrom ? { impersonatorId: principal.sudoFrom.id } : {}) };
}
