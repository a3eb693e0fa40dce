import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import { getDb } from "../../db/client";
import { passwordHashUpdate } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { AppError } from "../../domain/errors";
import { makeChange, userSubject } from "../changes/runner";

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
  // The new hash, the intent to drop every credential's copy of the user and the audit row in one
  // D1 batch (DESIGN, "Changes that finish"); a crash after it leaves the rest to the cron sweep.
  const passwordHash = await hashPassword(input.password);
  await makeChange(
    env,
    {
      kind: "password_changed",
      subject: userSubject(user.id),
      payload: { userId: user.id },
      audit: { action: "password_changed", actor: { id: user.id, ip }, entityType: "user", entityId: user.id },
    },
    passwordHashUpdate(getDb(env.DB), user.id, passwordHash),
  );
}
