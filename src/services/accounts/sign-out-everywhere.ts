import type { AuditActor } from "../../db/audit";
import type { Bindings } from "../../env";
import { makeChange, userSubject } from "../changes/runner";

/**
 * "Sign out everywhere" (docs/operations.md, "Sessions, passwords and two-factor settings"): every
 * other browser session of the user, every OAuth grant they made until now and every device code
 * they approved but no client redeemed end; the browser that asked stays signed in, and personal
 * access tokens are kept (they are not sign-ins). A change that finishes (DESIGN, "Changes that
 * finish"): the intent and the `signed_out_everywhere` row in one batch, the effects within the
 * request's subrequest budget, and whatever is left by a retry or the cron sweep; from the answer
 * on every grant it ends is refused (the intent's cutoff, src/db/grant-holder.ts). A second request
 * while one is pending finishes that one. Answers the grants this request revoked.
 */
export async function signOutEverywhere(env: Bindings, actor: AuditActor & { id: number }, keepSessionIdHash: string | null): Promise<number> {
  const { affected } = await makeChange(env, {
    kind: "sign_out_everywhere",
    subject: userSubject(actor.id),
    payload: { userId: actor.id, keepSessionIdHash, actor },
    audit: { action: "signed_out_everywhere", actor, entityType: "user", entityId: actor.id },
  });
  return affected;
}
