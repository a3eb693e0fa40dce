import type { Bindings } from "../../env";
import { makeChange, userSubject } from "../changes/runner";

/**
 * What a change of the user row (not of one token) does to every credential of that user: each
 * keeps a copy of the user so that a request costs one storage hop (docs/oauth.md, One hop), and
 * these are what keep the copies honest. Each is a change that finishes (DESIGN, "Changes that
 * finish"; src/services/changes/effects.ts): a user with thousands of grants is handled in slices
 * within the request's subrequest budget, and the cron sweep finishes what a crash left.
 */

/**
 * The user row changed (unblock, activation, profile, two-factor, e-mail): every credential drops
 * its copy, so the next request reads the new row. An isolate may still answer from the old row for
 * up to the validation cache's bound (DESIGN, Validation cache): nothing here takes access away.
 */
export async function userChanged(env: Bindings, userId: number): Promise<void> {
  await makeChange(env, { kind: "user_changed", subject: userSubject(userId), payload: { userId }, audit: null });
}

/**
 * The user row changed so as to take access away (`dpop_enabled` turned on): as userChanged, and
 * this answers only once no isolate can still remember a token of the user as valid
 * (validation-cache.ts), so from then on every request with any of the user's tokens reads the new row.
 */
export async function userLostAccess(env: Bindings, userId: number): Promise<void> {
  await makeChange(env, { kind: "user_access_narrowed", subject: userSubject(userId), payload: { userId }, audit: null });
}
