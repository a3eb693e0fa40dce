import { verifyReenteredPassword } from "./password-reentry";
import { hashPassword, passwordWeakness } from "../../crypto/password";
import type { AuditActor } from "../../db/audit";
import type { ChangeGuard, ChangeIntent } from "../../db/pending-changes";
import { getDb } from "../../db/client";
import { passwordHashUpdate } from "../../db/user-accounts";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { AppError } from "../../domain/errors";
import { finishChangesOf, makeChange, userSubject } from "../changes/runner";

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
 * and every approved device code ended, as for a block; personal access tokens stay (GitLab keeps
 * them across a password change). A change that finishes (DESIGN, "Changes that finish"): `guard`
 * (the statement that writes the new hash), the intent and the audit row in one D1 batch, then
 * the effects (effects.ts `password_replaced`), finished by the cron sweep if this request dies.
 * Answers whether the guard wrote the password (false: a reset link spent meanwhile).
 */
export async function replacePassword(
  env: Bindings,
  input: { userId: number; actor: AuditActor | null; reason: "password_set_by_admin" | "password_reset"; guard: ChangeGuard; audit: ChangeIntent["audit"] },
): Promise<boolean> {
  const subject = userSubject(input.userId);
  // An earlier replacement still pending would keep this intent from being written, and then
  // `recorded` could not tell whether the guard wrote: finish it first.
  await finishChangesOf(env, subject);
  const { recorded } = await makeChange(
    env,
    { kind: "password_replaced", subject, payload: { userId: input.userId, actor: input.actor, reason: input.reason }, audit: input.audit },
    input.guard,
  );
  return recorded;
}
