import type { AuditActor } from "../../db/audit";
import { deleteApplication } from "../../db/applications";
import { getDb } from "../../db/client";
import { liveFamilies } from "../../db/oauth-grants";
import type { ProjectRow } from "../../db/projects";
import { applicationIdsOwnedBy, deleteUserRow, ghostUser, personalProjectsOf, removeContributions } from "../../db/user-deletion";
import { findUserById } from "../../db/users";
import type { Bindings } from "../../env";
import { revokeFamilies } from "../../credentials/oauth-family";
import { revokeAllCredentialsOfUser } from "../../credentials/user-credentials";
import { outlastValidationCacheFromNow } from "../../credentials/validation-cache";

/** The payload of a user's deletion (src/services/accounts/user-delete.ts records it). */
export type UserDeletion = {
  userId: number;
  hardDelete: boolean;
  actor: AuditActor | null;
};

/** Personal projects are deleted this many at a time (each is a change of its own). */
const PROJECT_SLICE = 20;

/**
 * The effects of GitLab's user deletion, in its order, each idempotent (it reads what is left):
 * 1. everything the user holds is revoked: OAuth grants (revokeFamilies), sessions, approved device
 *    codes, every credential's copy of the user (personal access tokens die with the row);
 * 2. the OAuth applications they own: other users' grants of them revoked, then the rows;
 * 3. the projects of their personal namespace, each through the project deletion (`deleteProject`);
 * 4. their contributions moved to the ghost user, or deleted with hard_delete (src/db/user-deletion.ts);
 * 5. the user row, last (its cascades take what ownership.ts declares `cascade`).
 * Nothing to do once the row is gone. Answers how many grants were revoked.
 */
export async function deleteUserEffects(env: Bindings, p: UserDeletion, deleteProject: (project: ProjectRow) => Promise<void>): Promise<number> {
  const db = getDb(env.DB);
  if (!(await findUserById(db, p.userId))) return 0;
  let revoked = (await revokeAllCredentialsOfUser(env, p.userId, p.actor, "user_deleted")).families;

  const owned = await applicationIdsOwnedBy(db, p.userId);
  for (const applicationId of owned) {
    revoked += await revokeFamilies(env, (await liveFamilies(db, { applicationId })).map((f) => f.id), { actor: p.actor, reason: "application_deleted" });
    await deleteApplication(db, applicationId);
  }
  // Introspection remembers an authenticated client for at most L (src/oauth/request.ts), as for application_deleted.
  if (owned.length) await outlastValidationCacheFromNow(env);

  for (let slice = await personalProjectsOf(db, p.userId, PROJECT_SLICE); slice.length; slice = await personalProjectsOf(db, p.userId, PROJECT_SLICE)) {
    for (const project of slice) await deleteProject(project);
  }

  await removeContributions(db, p.userId, { hardDelete: p.hardDelete, ghostId: (await ghostUser(db)).id });
  await deleteUserRow(db, p.userId);
  return revoked;
}
