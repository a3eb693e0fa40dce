import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import { setPasswordHash } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { userChanged } from "../../credentials/user-credentials";

export type PasswordChangeFailure = "wrong_password" | "mismatch" | "weak" | "unchanged";

export class PasswordChangeError extends Error {
  constructor(
    readonly reason: PasswordChangeFailure,
    /** For "weak": GitLab's sentence about the new password. */
    readonly detail: string | null = null,
  ) {
    super(`password change ${reason}`);
    this.name = "PasswordChangeError";
  }
}

/**
 * GitLab's "Change your password" (Profile > Password): the current password, then the new one
 * twice. The caller ends the user's other sessions (src/web/session.ts, endOtherSessions).
 */
export async function changePassword(
  env: Bindings,
  user: UserRow,
  input: { current: string; password: string; confirmation: string },
  ip: string | null,
): Promise<void> {
  if (!(await verifyReenteredPassword(env, input.current, user.passwordHash, ip))) throw new PasswordChangeError("wrong_password");
  if (input.password !== input.confirmation) throw new PasswordChangeError("mismatch");
  const weakness = passwordWeakness(input.password);
  if (weakness) throw new PasswordChangeError("weak", weakness);
  if (input.password === input.current) throw new PasswordChangeError("unchanged");
  const db = getDb(env.DB);
  await setPasswordHash(db, user.id, await hashPassword(input.password));
  await recordAudit(db, { action: "password_changed", authorId: user.id, entityType: "user", entityId: user.id, ip });
  await userChanged(env, user.id);
}
