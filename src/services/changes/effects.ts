import type { AuditActor } from "../../db/audit";
import { deleteApplication } from "../../db/applications";
import { getDb } from "../../db/client";
import { liveFamilies } from "../../db/oauth-grants";
import type { Bindings } from "../../env";
import { revokeFamilies } from "../../credentials/oauth-family";
import { deleteSessionsOfUser } from "../../credentials/session";
import { endDeviceApprovalsOfUser, revokeAllCredentialsOfUser, userChanged, userLostAccess } from "../../credentials/user-credentials";
import { outlastValidationCacheFromNow } from "../../credentials/validation-cache";

/**
 * What each change that fans out does once its intent is recorded (DESIGN, "Changes that finish";
 * docs/operations.md, "How changes finish"). Every effect is idempotent: it reads what is left to
 * do (the live grants, the sessions, the rows) when it runs, so a second run after a crash, a
 * retried request and the cron sweep each finish whatever the first left, and never undo anything.
 * Each answers how many records it changed (a grant revocation's count is the API's answer).
 */
export interface ChangePayloads {
  /** Block: every grant revoked, sessions and approved device codes ended, snapshots dropped (PATs refused while blocked). */
  user_blocked: { userId: number; actor: AuditActor | null };
  /** Deactivation: sessions and approved device codes end; grants stay, refused while deactivated (GitLab). */
  user_deactivated: { userId: number };
  /** A new password: every credential's copy of the user is dropped (the web ends the other sessions itself). */
  password_changed: { userId: number };
  /** An application's deletion: its grants revoked, then its row (and with it the directory rows) deleted. */
  application_deleted: { applicationId: number };
  /** A user revokes an authorized application: their grants of it. */
  authorization_revoked: { userId: number; applicationId: number };
}

export type ChangeKind = keyof ChangePayloads;

type Effects = { [K in ChangeKind]: (env: Bindings, payload: ChangePayloads[K]) => Promise<number> };

const familyIds = (rows: { id: string }[]) => rows.map((r) => r.id);

export const EFFECTS: Effects = {
  user_blocked: async (env, p) => (await revokeAllCredentialsOfUser(env, p.userId, p.actor, "user_blocked")).families,

  user_deactivated: async (env, p) => {
    const [sessions] = await Promise.all([deleteSessionsOfUser(env, p.userId), endDeviceApprovalsOfUser(env, p.userId)]);
    await userLostAccess(env, p.userId);
    return sessions;
  },

  password_changed: async (env, p) => {
    await userChanged(env, p.userId);
    return 0;
  },

  application_deleted: async (env, p) => {
    const db = getDb(env.DB);
    const revoked = await revokeFamilies(env, familyIds(await liveFamilies(db, { applicationId: p.applicationId })), { actor: null, reason: "application_deleted" });
    await deleteApplication(db, p.applicationId);
    // Introspection remembers an authenticated client for at most L (src/oauth/request.ts).
    await outlastValidationCacheFromNow(env);
    return revoked;
  },

  authorization_revoked: async (env, p) =>
    revokeFamilies(env, familyIds(await liveFamilies(getDb(env.DB), p)), { actor: { id: p.userId, ip: null }, reason: "user_revoked_application" }),
};
