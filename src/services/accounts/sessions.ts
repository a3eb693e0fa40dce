import { listSessionsOfUser } from "../../credentials/session";
import { endBrowserSession } from "../logout/session-end";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import type { Bindings } from "../../env";

/**
 * A person's browser sessions as use cases (/users/sign_out, /profile/active_sessions): each end
 * of a session is audited here, whichever page asked for it. The cookie is the page's
 * (src/web/session.ts).
 */

/** The audit row of a person signing out without a session change (the sign-out button records it with the change: src/services/logout/session-end.ts). */
export async function recordSignOut(env: Bindings, actor: AuditActor): Promise<void> {
  await recordAudit(getDb(env.DB), { action: "sign_out", actor, entityType: "user", entityId: actor.id });
}

/**
 * Ends one of the user's sessions by its stored id; true (and audited) when one ended. The end is
 * a change (src/services/logout/session-end.ts): the clients it signed into are queued a
 * back-channel logout and its session-bound grants end, as on a sign-out.
 */
export async function revokeSession(env: Bindings, actor: AuditActor, userId: number, idHash: string, issuer: string): Promise<boolean> {
  const session = (await listSessionsOfUser(env, userId, Date.now())).find((r) => r.idHash === idHash);
  if (!session) return false;
  return endBrowserSession(env, { session, issuer, reason: "session_revoked", actor });
}
