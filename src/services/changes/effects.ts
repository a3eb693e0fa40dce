import { recordAudit, type AuditActor } from "../../db/audit";
import { batchesOf } from "../../db/batches";
import { deleteProjectRows, packageFileKeysOfProject } from "../../db/project-changes";
import { findProject } from "../../db/projects";
import { deleteProjectRepository } from "../../git/provisioning";
import { deleteApplication } from "../../db/applications";
import { getDb } from "../../db/client";
import type { Bindings } from "../../env";
import { deleteOtherSessionsOfUser, deleteSessionsOfUser } from "../../credentials/session";
import { endDeviceApprovalsOfUser } from "../../credentials/user-credentials";
import { outlastValidationCacheFromNow } from "../../credentials/validation-cache";
import { recordIntent } from "../../db/pending-changes";
import { dropUserSnapshotsSteps, revokeEverythingOfUser, revokeLiveFamiliesStep } from "./credential-steps";
import { once, PROJECT_CONTENTS_COST, type ChangeRun } from "./slices";
import { deleteUserEffects, type UserDeletion } from "./user-deletion";
import { sessionEndedEffects, type SessionEnded } from "../logout/session-grants";

/**
 * What each change that fans out does once its intent is recorded (DESIGN, "Changes that finish";
 * docs/operations.md, "How changes finish"). Every effect is idempotent: it reads what is left to
 * do (the live grants, the sessions, the rows) when it runs, so a second run after a crash, a
 * retried request and the cron sweep each finish whatever the first left, and never undo anything.
 * Each answers how many records it changed (a grant revocation's count is the API's answer).
 */
export interface ChangePayloads {
  /** Block: every grant revoked, sessions and approved device codes ended, snapshots dropped (PATs refused while blocked). */
  user_blocked: { userId: number; actor: AuditActor | null };
  /** Deactivation: sessions and approved device codes end; grants stay, refused while deactivated (GitLab). */
  user_deactivated: { userId: number };
  /** The user row changed (profile, two-factor, e-mail, unblock, activation): every credential's copy of the user is dropped. */
  user_changed: { userId: number };
  /** The user row changed so as to take access away (`dpop_enabled` turned on): as user_changed, and the answer waits out the validation cache. */
  user_access_narrowed: { userId: number };
  /** A new password: every credential's copy of the user is dropped (the web ends the other sessions itself). */
  password_changed: { userId: number };
  /** A password someone else set (an administrator, a mailed reset link): every grant, session and device approval ends, as for a block. */
  password_replaced: { userId: number; actor: AuditActor | null; reason: "password_set_by_admin" | "password_reset" };
  /** "Sign out everywhere" (src/services/accounts/sign-out-everywhere.ts): other sessions, every grant made until then, approved device codes; PATs kept. */
  sign_out_everywhere: { userId: number; keepSessionIdHash: string | null; actor: AuditActor };
  /** An application's deletion: its grants revoked, then its row (and with it the directory rows) deleted. */
  application_deleted: { applicationId: number };
  /** A user revokes an authorized application: their grants of it. */
  authorization_revoked: { userId: number; applicationId: number };
  /** A project's deletion: its package files in R2, its rows, then its repository at the git origin (src/services/namespaces.ts). */
  project_deleted: { projectId: number; actor: AuditActor | null };
  /** A user's deletion (GitLab's semantics, src/services/changes/user-deletion.ts): revoke, personal projects, contributions, the row. */
  user_deleted: UserDeletion;
  /** One browser session ended on purpose (sign-out, RP-Initiated Logout, a revoked session): back-channel logouts queued, its session-bound grants revoked (src/services/logout/). */
  session_ended: SessionEnded;
}

export type ChangeKind = keyof ChangePayloads;

/** What a run knows (how many runs failed before, its subrequest budget, where the last run stopped): slices.ts. */
export type { ChangeRun } from "./slices";

/**
 * An effect answers how many records this run changed. One that fans out (a Durable Object call or
 * a query per record) takes its steps through `once` and `inSlices` (slices.ts), numbered in order,
 * so it stays within the run's budget and a later run continues where it stopped.
 */
type Effects = { [K in ChangeKind]: (env: Bindings, payload: ChangePayloads[K], run: ChangeRun) => Promise<number> };

export const EFFECTS: Effects = {
  user_blocked: (env, p, run) => revokeEverythingOfUser(env, p.userId, run, { actor: p.actor, reason: "user_blocked" }),

  // The user stays active and may sign in again at once: grants made after the intent are theirs to keep.
  password_replaced: (env, p, run) => revokeEverythingOfUser(env, p.userId, run, { actor: p.actor, reason: p.reason }, { madeUpTo: run.recordedAt }),

  sign_out_everywhere: async (env, p, run) => {
    await once(run, 0, 2, () => Promise.all([deleteOtherSessionsOfUser(env, p.userId, p.keepSessionIdHash), endDeviceApprovalsOfUser(env, p.userId)]));
    return revokeLiveFamiliesStep(env, run, 1, { userId: p.userId, madeUpTo: run.recordedAt }, { actor: p.actor, reason: "sign_out_everywhere" });
  },

  user_deactivated: async (env, p, run) => {
    const ended = await once(run, 0, 2, () => Promise.all([deleteSessionsOfUser(env, p.userId), endDeviceApprovalsOfUser(env, p.userId)]));
    await dropUserSnapshotsSteps(env, run, 1, p.userId, { lostAccess: true });
    return ended?.[0] ?? 0;
  },

  user_changed: async (env, p, run) => {
    await dropUserSnapshotsSteps(env, run, 0, p.userId, { lostAccess: false });
    return 0;
  },

  user_access_narrowed: async (env, p, run) => {
    await dropUserSnapshotsSteps(env, run, 0, p.userId, { lostAccess: true });
    return 0;
  },

  password_changed: async (env, p, run) => {
    await dropUserSnapshotsSteps(env, run, 0, p.userId, { lostAccess: false });
    return 0;
  },

  application_deleted: async (env, p, run) => {
    const revoked = await revokeLiveFamiliesStep(env, run, 0, { applicationId: p.applicationId }, { actor: null, reason: "application_deleted" });
    await once(run, 1, 1, async () => {
      await deleteApplication(getDb(env.DB), p.applicationId);
      // Introspection remembers an authenticated client for at most L (src/oauth/request.ts).
      await outlastValidationCacheFromNow(env);
    });
    return revoked;
  },

  // A new authorization of the application after the revocation is the user's to keep.
  authorization_revoked: async (env, p, run) =>
    revokeLiveFamiliesStep(env, run, 0, { userId: p.userId, applicationId: p.applicationId, madeUpTo: run.recordedAt }, { actor: { id: p.userId, ip: null }, reason: "user_revoked_application" }),

  // Bounded by construction: one step of PROJECT_CONTENTS_COST subrequests (slices.ts says for
  // which projects that is exact), then the origin's removal (one call, one audit row on refusal).
  project_deleted: async (env, p, run) => {
    const removed = await once(run, 0, PROJECT_CONTENTS_COST, () => deleteProjectContents(env, p.projectId));
    await once(run, 1, 2, async () => {
      const failure = await deleteProjectRepository(env, p.projectId);
      if (!failure) return;
      // docs/git.md: the origin's refusal is an audit row naming the repository (once); the change
      // stays pending, so the cron sweep tries the removal again.
      if (run.attempts === 0) {
        await recordAudit(getDb(env.DB), { action: "project_repository_removal_failed", entityType: "project", entityId: p.projectId, details: { reason: failure }, actor: p.actor });
      }
      throw new Error(failure);
    });
    return removed ?? 0;
  },

  session_ended: sessionEndedEffects,

  user_deleted: (env, p, run) =>
    deleteUserEffects(env, p, run, async (projectId) => {
      const db = getDb(env.DB);
      const project = await findProject(db, String(projectId));
      if (!project) return;
      // Each personal project is deleted by the project deletion change (its intent and
      // `project_destroyed` row, subject as runner.ts projectSubject); its rows and objects go now,
      // its repository at the git origin when that change is finished (the cron sweep).
      await recordIntent(db, {
        kind: "project_deleted",
        subject: `project:${project.id}`,
        payload: { projectId: project.id, actor: p.actor },
        audit: { action: "project_destroyed", actor: p.actor, entityType: "project", entityId: project.id, details: { path_with_namespace: project.pathWithNamespace, reason: "user_deleted" } },
      }, null);
      await deleteProjectContents(env, project.id);
    }),
};

/**
 * A deleted project's package files in R2, then its rows (src/db/project-changes.ts): the objects go
 * first, so a crash between leaves rows that still name them; the keys the row deletion returns are
 * deleted again (files added meanwhile). Nothing to do once the row is gone. Answers the objects deleted.
 */
export async function deleteProjectContents(env: Bindings, projectId: number): Promise<number> {
  const db = getDb(env.DB);
  const project = await findProject(db, String(projectId));
  if (!project) return 0;
  const deleteObjects = async (keys: string[]) => {
    for (const slice of batchesOf(keys, 1000)) await env.FILES.delete(slice);
  };
  const keys = await packageFileKeysOfProject(db, projectId);
  await deleteObjects(keys);
  const { r2Keys } = await deleteProjectRows(db, project);
  await deleteObjects(r2Keys.filter((k) => !keys.includes(k)));
  return r2Keys.length;
}
