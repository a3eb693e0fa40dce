import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { disableOtp } from "../../db/two-factor";
import { findUserById } from "../../db/users";
import type { Bindings } from "../../env";
import { deletePendingTwoFactorSessions } from "../../db/user-accounts";
import { userChanged } from "./user-changed";
import { AppError } from "../../domain/errors";

/**
 * An administrator turns off a user's two-factor authentication (GitLab's TwoFactor::DestroyService),
 * for someone who lost both their authenticator and their recovery codes. The secret and the
 * recovery codes are removed; sign-ins waiting for a second factor end. Through the API
 * (`PATCH /users/:id/disable_two_factor`) GitLab refuses it for administrators (only the admin
 * area may); `via` says which door asks.
 */
export async function disableTwoFactorOfUser(env: Bindings, actor: AuditActor, userId: number, via: "api" | "admin_page"): Promise<void> {
  const db = getDb(env.DB);
  const user = await findUserById(db, userId);
  if (!user) throw new AppError("not_found", "User Not Found");
  if (via === "api" && user.isAdmin) {
    throw new AppError("forbidden", "Two-factor authentication for admins cannot be disabled via the API. Use the admin area", { reason: "admin_target" });
  }
  if (!user.otpRequired) throw new AppError("invalid", "Two-factor authentication is not enabled for this user", { reason: "not_enabled" });
  await disableOtp(db, user.id);
  // A sign-in that got past the password while two-factor was on must start again.
  await deletePendingTwoFactorSessions(db, user.id);
  await recordAudit(db, { action: "two_factor_disabled", actor, entityType: "user", entityId: user.id, details: { by_admin: true } });
  await userChanged(env, user.id);
}
