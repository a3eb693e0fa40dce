import { deleteSessionOfUser } from "../../credentials/session";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import type { Bindings } from "../../env";

/**
 * A person's browser sessions as use cases (/users/sign_out, /profile/active_sessions): each end
 * of a session is audited here, whichever page asked for it. The cookie is the page's
 * (src/web/session.ts).
 */

/** The audit row of a person signing out (the page has ended the session with its cookie). */
export async function recordSignOut(env: Bindings, actor: AuditActor): Promise<void> {
  await recordAudit(getDb(env.DB), { action: "sign_out", actor, entityType: "user", entityId: actor.id });
}

/** Ends one of the user's sessions by its stored id; true (and audited) when one ended. */
export async function revokeSession(env: Bindings, actor: AuditActor, userId: number, idHash: string): Promise<boolean> {
  const ended = await deleteSessionOfUser(env, userId, idHash);
  if (ended) await recordAudit(getDb(env.DB), { action: "session_revoked", actor, entityType: "user", entityId: userId });
  return ended;
}
