import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import type { AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { passwordHashUpdate } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { revokeAllCredentialsOfUser } from "../../credentials/user-credentials";
import { AppError } from "../../domain/errors";
import { makeChange, userSubject } from "../changes/runner";

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
  // The new hash, the intent to drop every credential's copy of the user and the audit row in one
  // D1 batch (DESIGN, "Changes that finish"); a crash after it leaves the rest to the cron sweep.
  const passwordHash = await hashPassword(input.password);
  await makeChange(
    env,
    {
      kind: "password_changed",
      subject: userSubject(user.id),
      payload: { userId: user.id },
      audit: {
        action: "password_changed",
        actor: { id: user.id, ip },
        entityType: "user",
        entityId: user.id,
        details: user.passwordExpiresAt !== null ? { expired: true } : {},
      },
    },
    passwordHashUpdate(getDb(env.DB), user.id, passwordHash, null),
  );
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
