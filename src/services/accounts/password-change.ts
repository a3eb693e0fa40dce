import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import { setPasswordHash } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { userChanged } from "../../credentials/user-credentials";
import { AppError } from "../../domain/errors";

export const PASSWORD_CHANGE_FAILURES = ["wrong_password", "mismatch", "weak", "unchanged"] as const;
export type PasswordChangeFailure = (typeof PASSWORD_CHANGE_FAILURES)[number];
/** For "weak" the message is GitLab's sentence about the new password. */
const passwordChangeError = (reason: PasswordChangeFailure, message = `password change ${reason}`) => new AppError("invalid", message, { reason });

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
  if (!(await verifyReenteredPassword(env, input.current, user.passwordHash, ip))) throw passwordChangeError("wrong_password");
  if (input.password !== input.confirmation) throw passwordChangeError("mismatch");
  const weakness = passwordWeakness(input.password);
  if (weakness) throw passwordChangeError("weak", weakness);
  if (input.password === input.current) throw passwordChangeError("unchanged");
  const db = getDb(env.DB);
  await setPasswordHash(db, user.id, await hashPassword(input.password));
  await recordAudit(db, { action: "password_changed", authorId: user.id, entityType: "user", entityId: user.id, ip });
  await userChanged(env, user.id);
}
