import type { AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { deleteSessionStatement, type SessionRow } from "../../db/sessions";
import type { Bindings } from "../../env";
import { makeChange } from "../changes/runner";
import type { SessionEnded, SessionEndReason } from "./session-grants";

/**
 * Ending one browser session on purpose (docs/oidc.md, "Signing out"): the sign-out button, the
 * end-session endpoint (RP-Initiated Logout), revoking a session on /profile/active_sessions.
 * It is a change that finishes (src/services/changes/, kind `session_ended`): the session's
 * deletion (the guard), the intent and the audit row in one D1 batch; then the effects, each
 * idempotent, which the cron finishes after a crash:
 *
 * 1. queue a Back-Channel Logout delivery to every client with a `backchannel_logout_uri` that
 *    holds a grant authorised in the session (durable before anything is sent; sending is
 *    ./backchannel.ts, right after the request and from the cron);
 * 2. revoke the grants authorised in the session that end with it: OpenID Connect grants whose
 *    request did not ask for offline_access (node-oidc-provider's rule), in slices, however many.
 */
export const sessionSubject = (idHash: string) => `session:${idHash}`;

/** Records and finishes the end of `session`; false when it had already ended (nothing recorded). */
export async function endBrowserSession(
  env: Bindings,
  input: { session: SessionRow; issuer: string; reason: SessionEndReason; actor: AuditActor },
): Promise<boolean> {
  const { session, reason, actor } = input;
  const payload: SessionEnded = { userId: session.userId, sid: session.sid, issuer: session.issuer ?? input.issuer, reason, actor };
  const done = await makeChange(
    env,
    {
      kind: "session_ended",
      subject: sessionSubject(session.idHash),
      payload,
      audit: { action: reason === "session_revoked" ? "session_revoked" : "sign_out", actor, entityType: "user", entityId: session.userId, details: { reason } },
    },
    deleteSessionStatement(getDb(env.DB), session.userId, session.idHash),
  );
  return done.recorded;
}

