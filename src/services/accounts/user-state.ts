import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { transitionUserState, userStateTransition, type AccountState } from "../../db/user-accounts";
import { findUserById, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { userChanged } from "./user-changed";
import { AppError } from "../../domain/errors";
import { finishChangesOf, recordChange, userSubject } from "../changes/runner";

/**
 * Account controls, as GitLab's admin API (docs/operations.md, "Account controls"):
 *
 * - block: the user can no longer sign in or use the API; every browser session ends and every
 *   OAuth grant is revoked at once (DESIGN, Hardening); personal access tokens stop working while
 *   the user is blocked and work again after unblock (GitLab keeps them).
 * - deactivate (only for users without activity in the last 90 days): sessions end and every token
 *   stops working while deactivated; signing in on the web reactivates the account (GitLab).
 *
 * Every credential check already refuses a user whose state is not "active" (sessions, PATs, the
 * OAuth family's user snapshot, which userChanged() drops), so the change holds on the next request.
 */
export type UserState = AccountState;

/** GitLab's ::User::MINIMUM_INACTIVE_DAYS. */
export const MINIMUM_INACTIVE_DAYS = 90;

/** A refused state change: not_found (404) or forbidden (403, GitLab's sentence as the reason). */
export const accountStateError = (kind: "not_found" | "forbidden", message: string) => new AppError(kind, message);

/** What an action did: GitLab answers `true` on a change, `null` when there was nothing to do, `false` when refused quietly. */
export type StateChange = true | false | null;

/** The acting principal (src/credentials/principal.ts actorOf): audit rows name Sudo's administrator too. */
type Actor = AuditActor;

async function target(env: Bindings, userId: number): Promise<UserRow> {
  const user = await findUserById(getDb(env.DB), userId);
  if (!user) throw accountStateError("not_found", "User Not Found");
  return user;
}

/** One conditional UPDATE, so two admins racing change the state once and audit it once. */
async function transition(env: Bindings, userId: number, from: UserState[], to: UserState): Promise<boolean> {
  return transitionUserState(getDb(env.DB), userId, from, to);
}

/**
 * Records a block (DESIGN, "Changes that finish"): the state, the intent to revoke everything the
 * user holds and the `user_blocked` audit row in one D1 batch. False when the user was not active
 * or deactivated (already blocked, or another request blocked them first).
 */
export async function recordBlock(env: Bindings, actor: Actor, userId: number): Promise<boolean> {
  return recordChange(
    env,
    { kind: "user_blocked", subject: userSubject(userId), payload: { userId, actor }, audit: { action: "user_blocked", actor, entityType: "user", entityId: userId } },
    userStateTransition(getDb(env.DB), userId, ["active", "deactivated"], "blocked"),
  );
}

/**
 * A change already recorded whose effects are pending (a crash, a failed revocation) is finished by
 * the retried request, which then answers as the first would have: `true`. Nothing of that kind
 * pending: `null` (other pending changes of the user are finished too, but do not count).
 */
async function finishOrNothing(env: Bindings, userId: number, kind: "user_blocked" | "user_deactivated"): Promise<StateChange> {
  return (await finishChangesOf(env, userSubject(userId))).kinds.includes(kind) ? true : null;
}

/**
 * Unblock and activation finish what is pending for the user first; when the invocation's budget
 * ran out before (a block of many grants, src/services/changes/slices.ts) the state stays as it is
 * and the request is refused with GitLab's 403 for a transition not allowed now; the cron sweep or
 * a retry continues the change (docs/operations.md, "How changes finish").
 */
async function finishPendingFirst(env: Bindings, userId: number, what: string): Promise<void> {
  // Refused without an answer about access, so no wait for stale snapshots (runner.ts).
  if ((await finishChangesOf(env, userSubject(userId), undefined, { answersAccessEnded: false })).pending > 0) {
    throw accountStateError("forbidden", `The ${what} of this user is still being applied; try again later`);
  }
}

export async function blockUser(env: Bindings, actor: Actor, userId: number): Promise<StateChange> {
  const user = await target(env, userId);
  if (user.state !== "blocked") await recordBlock(env, actor, userId);
  return finishOrNothing(env, userId, "user_blocked");
}

export async function unblockUser(env: Bindings, actor: Actor, userId: number): Promise<StateChange> {
  const user = await target(env, userId);
  if (user.state === "deactivated") throw accountStateError("forbidden", "Deactivated users cannot be unblocked by the API");
  if (user.state !== "blocked") return false;
  // A block whose revocations did not all happen is finished first: an unblock revives nothing.
  await finishPendingFirst(env, userId, "block");
  if (!(await transition(env, userId, ["blocked"], "active"))) return false;
  await userChanged(env, userId);
  await recordAudit(getDb(env.DB), { action: "user_unblocked", actor, entityType: "user", entityId: userId });
  return true;
}

/** GitLab: only users without activity in the last 90 days may be deactivated. */
export function recentlyActive(user: Pick<UserRow, "lastSignInAt">, now: number): boolean {
  return user.lastSignInAt !== null && now - user.lastSignInAt < MINIMUM_INACTIVE_DAYS * 86_400_000;
}

export async function deactivateUser(env: Bindings, actor: Actor, userId: number, now = Date.now()): Promise<StateChange> {
  const user = await target(env, userId);
  if (user.state === "deactivated") return finishOrNothing(env, userId, "user_deactivated");
  if (user.state === "blocked") throw accountStateError("forbidden", "A blocked user cannot be deactivated by the API");
  if (recentlyActive(user, now)) {
    throw accountStateError(
      "forbidden",
      `The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`,
    );
  }
  // Unlike block, OAuth grants are kept: they are refused while deactivated (every issuance checks
  // the user's state) and work again after activation, as GitLab's tokens do. Device codes approved
  // but not yet redeemed end: the device never held a token, and activation must not hand it one
  // (src/services/changes/effects.ts, user_deactivated).
  await recordChange(
    env,
    { kind: "user_deactivated", subject: userSubject(userId), payload: { userId }, audit: { action: "user_deactivated", actor, entityType: "user", entityId: userId } },
    userStateTransition(getDb(env.DB), userId, ["active"], "deactivated"),
  );
  return finishOrNothing(env, userId, "user_deactivated");
}

export async function activateUser(env: Bindings, actor: Actor | null, userId: number): Promise<StateChange> {
  const user = await target(env, userId);
  if (user.state === "blocked") throw accountStateError("forbidden", "A blocked user must be unblocked to be activated");
  if (user.state === "active") return true;
  // A deactivation whose effects are pending is finished first: activation hands nothing back.
  await finishPendingFirst(env, userId, "deactivation");
  if (!(await transition(env, userId, ["deactivated"], "active"))) return true;
  await userChanged(env, userId);
  // Without an actor the user reactivated themselves by signing in (GitLab).
  await recordAudit(getDb(env.DB), {
    action: "user_activated",
    actor: actor ?? { id: userId, ip: null },
    entityType: "user",
    entityId: userId,
    details: actor ? {} : { reason: "signed_in" },
  });
  return true;
}
