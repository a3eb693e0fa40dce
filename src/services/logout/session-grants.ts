import type { AuditActor } from "../../db/audit";
import { familiesEndingWithSid, queueLogoutsOfSid } from "../../db/backchannel-logouts";
import { getDb } from "../../db/client";
import type { Bindings } from "../../env";
import { revokeFamilies } from "../../credentials/oauth-family";

/**
 * What ending a browser session does to the OpenID Connect grants it authorised (the effects of
 * the change `session_ended`, recorded by ./session-end.ts; docs/oidc.md, "Signing out").
 */
export type SessionEndReason = "sign_out" | "rp_initiated_logout" | "session_revoked";

export type SessionEnded = {
  userId: number;
  /** Null for a session from before sids: nothing signed in with it, nothing to notify. */
  sid: string | null;
  /** The issuer the session signed in under: the logout tokens' `iss`. */
  issuer: string;
  reason: SessionEndReason;
  actor: AuditActor;
};

/** The effects of `session_ended` (see above); answers how many grants it revoked. */
export async function sessionEndedEffects(env: Bindings, p: SessionEnded): Promise<number> {
  if (!p.sid) return 0;
  const db = getDb(env.DB);
  await queueLogoutsOfSid(db, p.sid, p.issuer, Date.now());
  return revokeFamilies(env, await familiesEndingWithSid(db, p.sid), { actor: p.actor, reason: "session_ended" });
}
