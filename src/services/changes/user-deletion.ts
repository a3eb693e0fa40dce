import type { AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { contributionStatements, deleteApplicationsOwnedBy, deleteUserRow, ghostUser, personalProjectIdsOf, removeContributions } from "../../db/user-deletion";
import { findUserById } from "../../db/users";
import type { Bindings } from "../../env";
import { outlastValidationCacheFromNow } from "../../credentials/validation-cache";
import { revokeEverythingOfUser, revokeLiveFamiliesStep } from "./credential-steps";
import { inSlices, once, PROJECT_CONTENTS_COST, type ChangeRun } from "./slices";

/** The payload of a user's deletion (src/services/accounts/user-delete.ts records it). */
export type UserDeletion = {
  userId: number;
  hardDelete: boolean;
  actor: AuditActor | null;
};

/**
 * What one personal project's deletion costs in subrequests (effects.ts): its read and intent, then
 * `deleteProjectContents` (PROJECT_CONTENTS_COST).
 */
const PERSONAL_PROJECT_COST = 2 + PROJECT_CONTENTS_COST;

/**
 * The effects of GitLab's user deletion, in its order, each step idempotent (it reads what is left)
 * and within the run's subrequest budget (src/services/changes/slices.ts):
 * 0-3. everything the user holds ends: sessions and approved device codes, OAuth grants, every
 *    credential's copy of the user (personal access tokens die with the row);
 * 4-5. the OAuth applications they own: other users' grants of them revoked, a page at a time,
 *    then the rows in one statement;
 * 6. the projects of their personal namespace, a page at a time, each through the project
 *    deletion (`deleteProject`);
 * 7. their contributions moved to the ghost user, or deleted with hard_delete (src/db/user-deletion.ts);
 * 8. the user row, last (its cascades take what ownership.ts declares `cascade`).
 * Nothing to do once the row is gone. Answers how many grants this run revoked.
 */
export async function deleteUserEffects(env: Bindings, p: UserDeletion, run: ChangeRun, deleteProject: (projectId: number) => Promise<void>): Promise<number> {
  const db = getDb(env.DB);
  if (!run.budget.take(1)) {
    run.stopped = true;
    return 0;
  }
  if (!(await findUserById(db, p.userId))) return 0;
  let revoked = await revokeEverythingOfUser(env, p.userId, run, { actor: p.actor, reason: "user_deleted" });

  revoked += await revokeLiveFamiliesStep(env, run, 4, { ownerId: p.userId }, { actor: p.actor, reason: "application_deleted" });
  await once(run, 5, 2, async () => {
    // Introspection remembers an authenticated client for at most L (src/oauth/request.ts), as for application_deleted.
    if (await deleteApplicationsOwnedBy(db, p.userId)) await outlastValidationCacheFromNow(env);
  });

  await inSlices(run, 6, {
    page: async (after, limit) => (await personalProjectIdsOf(db, p.userId, Number(after || 0), limit)).map(String),
    apply: async (ids) => {
      for (const id of ids) await deleteProject(Number(id));
      return 0;
    },
    costOf: (n) => n * PERSONAL_PROJECT_COST,
  });

  await once(run, 7, 3 + contributionStatements, async () => removeContributions(db, p.userId, { hardDelete: p.hardDelete, ghostId: (await ghostUser(db)).id }));
  await once(run, 8, 1, () => deleteUserRow(db, p.userId));
  return revoked;
}
