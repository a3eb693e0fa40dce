import type { AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { liveFamilyIdsAfter } from "../../db/oauth-grants";
import { livePersonalAccessTokenHashesAfter } from "../../db/personal-access-tokens";
import type { Bindings } from "../../env";
import { familyStub, revokeFamilies } from "../../credentials/oauth-family";
import { dropUserFromPersonalAccessTokenHashes } from "../../credentials/personal-access-token";
import { outlastValidationCache, type SinceVouched } from "../../credentials/validation-cache";
import { deleteSessionsOfUser } from "../../credentials/session";
import { endDeviceApprovalsOfUser } from "../../credentials/user-credentials";
import { inSlices, once, revocationCost, type ChangeRun } from "./slices";

/**
 * The sliced steps the changes of a user or an application take over credentials (effects.ts):
 * each is `inSlices` over ids in order, so a run stops where its budget ends and the next run
 * continues after the last id done (src/services/changes/slices.ts).
 */

/** Step `step`: the live grants of the user or application (or both) are revoked, a page at a time. */
export function revokeLiveFamiliesStep(
  env: Bindings,
  run: ChangeRun,
  step: number,
  of: { userId?: number; applicationId?: number; ownerId?: number; madeUpTo?: number },
  by: { actor: AuditActor | null; reason: string },
): Promise<number> {
  return inSlices(run, step, {
    page: (after, limit) => liveFamilyIdsAfter(getDb(env.DB), of, after, limit),
    apply: (ids) => revokeFamilies(env, ids, by),
    costOf: revocationCost,
  });
}

/**
 * Step `step`: the user's live grants drop their copy of the user; `step + 1`: the user's live
 * personal access tokens do. With `lostAccess`, each page waits out the validation cache for the
 * tokens it dropped (src/services/accounts/user-changed.ts userLostAccess).
 */
export async function dropUserSnapshotsSteps(env: Bindings, run: ChangeRun, step: number, userId: number, o: { lostAccess: boolean }): Promise<void> {
  const wait = async (since: SinceVouched[]) => {
    if (o.lostAccess) await outlastValidationCache(env, since);
  };
  await inSlices(run, step, {
    page: (after, limit) => liveFamilyIdsAfter(getDb(env.DB), { userId }, after, limit),
    apply: async (ids) => {
      await wait(await Promise.all(ids.map((id) => familyStub(env, id).dropUser())));
      return 0;
    },
    costOf: (n) => n,
  });
  await inSlices(run, step + 1, {
    page: (after, limit) => livePersonalAccessTokenHashesAfter(getDb(env.DB), userId, after, limit),
    apply: async (hashes) => {
      await wait(await dropUserFromPersonalAccessTokenHashes(env, hashes));
      return 0;
    },
    costOf: (n) => n,
  });
}

/**
 * Everything a user holds ends (a block, a password someone else set, a deletion), from step
 * `first`; with `madeUpTo`, only grants made up to then (the user is still active): sessions and approved device codes (one step of two statements), every grant revoked,
 * then every snapshot dropped (personal access tokens outlive a block, GitLab, but must be refused
 * while it lasts). Takes steps `first` to `first + 3`. Answers the grants this run revoked.
 */
export async function revokeEverythingOfUser(
  env: Bindings,
  userId: number,
  run: ChangeRun,
  by: { actor: AuditActor | null; reason: string },
  o: { first?: number; madeUpTo?: number } = {},
): Promise<number> {
  const first = o.first ?? 0;
  await once(run, first, 2, () => Promise.all([deleteSessionsOfUser(env, userId), endDeviceApprovalsOfUser(env, userId)]));
  const revoked = await revokeLiveFamiliesStep(env, run, first + 1, { userId, madeUpTo: o.madeUpTo }, by);
  await dropUserSnapshotsSteps(env, run, first + 2, userId, { lostAccess: true });
  return revoked;
}
