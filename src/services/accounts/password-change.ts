import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { setPasswordHashExpiring } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { revokeAllCredentialsOfUser, userChanged } from "../../credentials/user-credentials";
import { AppError } from "../../domain/errors";

export const PASSWORD_CHANGE_FAILURES = ["wrong_password", "mismatch", "weak", "unchanged"] as const;
export type PasswordChangeFailure = (typeof PASSWORD_CHANGE_FAILURES)[number];
/** For "weak" the message is GitLab's sentence about the new password. */
export const passwordChangeError = (reason: PasswordChangeFailure, message = `password change ${reason}`) => new AppError("invalid", message, { reason });

/** GitLab's rule for a new password, whoever sets it: refused with its sentence when weak. */
export function assertStrongPassword(password: string): void {
  const weakness = passwordWeakness(password);
  if (weakness) throw passwordChangeError("weak", weakness);
}

/**
 * GitLab's "Change your password" (Profile > Password): the current password, then the new one
 * twice. The user's own choice, so an expired password (one an administrator set) is expired no
 * more. The caller ends the user's other sessions (src/web/session.ts, endOtherSessions).
 */
export async function changePassword(
  env: Bindings,
  user: UserRow,
  input: { current: string; password: string; confirmation: string },
  ip: string | null,
): Promise<void> {
  if (!(await verifyReenteredPassword(env, input.current, user.passwordHash, ip))) throw passwordChangeError("wrong_password");
  if (input.password !== input.confirmation) throw passwordChangeError("mismatch");
  assertStrongPassword(input.password);
  if (input.password === input.current) throw passwordChangeError("unchanged");
  const db = getDb(env.DB);
  await setPasswordHashExpiring(db, user.id, await hashPassword(input.password), null);
  await recordAudit(db, { action: "password_changed", authorId: user.id, entityType: "user", entityId: user.id, ip, details: user.passwordExpiresAt !== null ? { expired: true } : {} });
  await userChanged(env, user.id);
}

/**
 * A password set for the user by someone else (an administrator) or through a mailed reset link:
 * whoever knew the old one loses access at once. Every session ends, every OAuth grant is revoked
 * and every approved device code ended (revokeAllCredentialsOfUser), as for a block; personal
 * access tokens stay (GitLab keeps them across a password change).
 */
export async function endAccessAfterPasswordReplaced(env: Bindings, userId: number, actor: AuditActor | null, reason: "password_set_by_admin" | "password_reset") {
  return revokeAllCredentialsOfUser(env, userId, actor, reason);
}
