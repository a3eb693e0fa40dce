import type { AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { GHOST_EMAIL, otherAdministrators, userDeletionGuard } from "../../db/user-deletion";
import { findUserById, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { finishChangesOf, recordChange, userSubject } from "../changes/runner";
import { accountStateError } from "./user-state";

/**
 * GitLab's user deletion (`DELETE /api/v4/users/:id`, the admin page's "Delete user"; docs/operations.md,
 * "Delete a user"), a change that finishes (DESIGN, "Changes that finish"): the user is blocked, the
 * intent and the `user_destroyed` audit row are written in one D1 batch, then the effects run
 * (src/services/changes/user-deletion.ts). Without `hardDelete` their contributions move to the
 * ghost user; with it they are deleted.
 *
 * Refusals (403, GitLab's reasons): an administrator deleting themselves (or the administrator
 * behind Sudo), the last administrator, the ghost user. Unknown user: 404, unless a deletion of that
 * user is still pending: then this request finishes it and answers as the first would have.
 */
export async function deleteUser(env: Bindings, actor: AuditActor, userId: number, o: { hardDelete: boolean }): Promise<void> {
  const db = getDb(env.DB);
  const subject = userSubject(userId);
  const user = await findUserById(db, userId);
  if (!user) {
    // The row goes last: a deletion whose effects ran but whose intent survived a crash is finished here.
    if ((await finishChangesOf(env, subject)).kinds.includes("user_deleted")) return;
    throw accountStateError("not_found", "User Not Found");
  }
  if (userId === actor.id || userId === actor.impersonatorId) throw accountStateError("forbidden", "You cannot delete yourself");
  if (user.email === GHOST_EMAIL) throw accountStateError("forbidden", "The ghost user cannot be deleted");
  if (user.isAdmin && (await otherAdministrators(db, userId)) === 0) throw accountStateError("forbidden", "The last administrator cannot be deleted");
  await recordUserDeletion(env, actor, user, o);
  await finishChangesOf(env, subject);
}

/**
 * The deletion's intent: the user blocked, the intent and the `user_destroyed` row in one D1 batch.
 * False when the user row is gone or a deletion of them is already pending (two admins racing
 * record and audit one deletion; the first request's hard_delete holds).
 */
export async function recordUserDeletion(env: Bindings, actor: AuditActor, user: Pick<UserRow, "id" | "username">, o: { hardDelete: boolean }): Promise<boolean> {
  return recordChange(
    env,
    {
      kind: "user_deleted",
      subject: userSubject(user.id),
      payload: { userId: user.id, hardDelete: o.hardDelete, actor },
      audit: { action: "user_destroyed", actor, entityType: "user", entityId: user.id, details: { username: user.username, hard_delete: o.hardDelete } },
    },
    userDeletionGuard(getDb(env.DB), user.id),
  );
}
