import { confirmUnconfirmedEmail, findUserByConfirmationToken, storeUnconfirmedEmail } from "../../db/account-tokens";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { takenFields, type UserRow } from "../../db/users";
import { AppError } from "../../domain/errors";
import { verifyReenteredPassword } from "./password-reentry";
import type { Bindings } from "../../env";
import { userChanged } from "./user-changed";
import { sendMail } from "../../mail/mail";
import { CONFIRM_WITHIN_MS, newMailedToken, stillValid, tokenHash } from "./mailed-tokens";

/**
 * A changed e-mail address is confirmed by mail before it takes effect (GitLab's unconfirmed_email,
 * Devise's reconfirmable): the new address waits in unconfirmed_email, a link goes to it, and
 * opening /users/confirmation?confirmation_token=... makes it the primary address. Until then the
 * old address stays in force for sign-in, mail and the API.
 */
export async function requestEmailChange(env: Bindings, origin: string, actor: AuditActor, user: UserRow, email: string): Promise<void> {
  const db = getDb(env.DB);
  const { token, hash } = await newMailedToken();
  await storeUnconfirmedEmail(db, user.id, email, hash, Date.now());
  const sent = await sendMail(env, origin, {
    to: email,
    subject: "Confirmation instructions",
    text: [
      `Hello, ${user.name}!`,
      "",
      `Someone asked for ${email} to become the e-mail address of the account ${user.username}.`,
      `Confirm it by opening this link within three days: ${origin}/users/confirmation?confirmation_token=${token}`,
      "",
      "Until it is confirmed, the account keeps its current address. If this was not you, ignore this email.",
    ].join("\n"),
  });
  await recordAudit(db, { action: "email_confirmation_sent", actor, entityType: "user", entityId: user.id, details: { mail_sent: sent } });
  await userChanged(env, user.id);
}

export const EMAIL_CHANGE_FAILURES = ["wrong_password", "taken", "unchanged"] as const;
const emailChangeError = (reason: (typeof EMAIL_CHANGE_FAILURES)[number]) => new AppError("invalid", `email change ${reason}`, { reason });

/**
 * A user changes their own address (GitLab's Edit profile): the current password first (GitLab's
 * validate_password_for_email_change, throttled like every re-entered password), then a
 * confirmation link to the new address; the old one stays in force until it is opened.
 */
export async function requestOwnEmailChange(env: Bindings, origin: string, user: UserRow, input: { email: string; password: string }, ip: string | null): Promise<void> {
  if (input.email.toLowerCase() === user.email.toLowerCase()) throw emailChangeError("unchanged");
  if (!(await verifyReenteredPassword(env, input.password, user.passwordHash, ip))) throw emailChangeError("wrong_password");
  if ((await takenFields(getDb(env.DB), "", input.email)).email) throw emailChangeError("taken");
  await requestEmailChange(env, origin, { id: user.id, ip }, user, input.email);
}

/** Confirms by the mailed link: the new address takes effect once. False for an unknown, spent or expired link. */
export async function confirmEmail(env: Bindings, token: unknown, ip: string | null, now = Date.now()): Promise<UserRow | null> {
  const hash = await tokenHash(token);
  if (!hash) return null;
  const db = getDb(env.DB);
  const user = await findUserByConfirmationToken(db, hash);
  if (!user || !user.unconfirmedEmail || !stillValid(user.confirmationSentAt, CONFIRM_WITHIN_MS, now)) return null;
  let confirmed: boolean;
  try {
    confirmed = await confirmUnconfirmedEmail(db, user.id, hash);
  } catch (e) {
    // Someone else took the address since it was asked for: D1's unique index decides.
    if (isUniqueViolation(e)) return null;
    throw e;
  }
  if (!confirmed) return null;
  await recordAudit(db, { action: "email_confirmed", authorId: user.id, entityType: "user", entityId: user.id, ip, details: { email: user.unconfirmedEmail } });
  await userChanged(env, user.id);
  return user;
}
