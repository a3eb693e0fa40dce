import type { UserRow } from "../../db/users";

/**
 * GitLab's password_expired?: a password an administrator set (src/services/accounts/user-edit.ts)
 * expires at once, and until the user chooses their own every page leads to
 * /profile/password/new (GitLab's check_password_expiration).
 */
export function passwordExpired(user: Pick<UserRow, "passwordExpiresAt">, now = Date.now()): boolean {
  return user.passwordExpiresAt !== null && user.passwordExpiresAt <= now;
}
