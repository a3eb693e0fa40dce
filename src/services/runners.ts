import { recordAudit, type AuditAction, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import {
  createRunner,
  deleteRunner,
  disableRunner,
  enableRunner,
  findRunner,
  resetRegistrationToken as storeRegistrationToken,
  updateRunner,
  type NewRunner,
  type RegistrationScope,
  type RunnerRow,
} from "../db/runners";
import { normaliseTags, runnerSettingsErrors, type RunnerSettingsErrors } from "../domain/runner-settings";
import type { Bindings } from "../env";
import type { CheckedProject } from "./abilities";

/**
 * Runners as use cases (DESIGN "Layout", src/services), shared by the REST API and GraphQL:
 * register, update (pause included), delete, reset a registration token, assign to and unassign
 * from projects. Plain values in; GitLab's model rules checked (src/domain/runner-settings.ts);
 * every change audited under GitLab's event names. The caller has checked the actor's access.
 */

/** Who acts: a signed-in principal (actorOf), or a runner by its own token (its address only). */
export type RunnerActor = { actor: AuditActor } | { ip: string | null };

function audit(env: Bindings, who: RunnerActor, action: AuditAction, entity: { type: string; id: number }, details: Record<string, unknown>) {
  const event = { action, entityType: entity.type, entityId: entity.id, details };
  return recordAudit(getDb(env.DB), "actor" in who ? { ...event, actor: who.actor } : { ...event, authorId: null, ip: who.ip });
}

const runnerEntity = (r: RunnerRow) => ({ type: "ci_runner", id: r.id });
const runnerDetails = (r: RunnerRow) => ({ runner_type: r.runnerType, group_id: r.groupId, description: r.description });

export type RunnerResult = { ok: true; runner: RunnerRow } | { ok: false; errors: RunnerSettingsErrors };

/**
 * Creates a runner. `how`: created by a user (POST /user/runners, GitLab's ci_runner_created) or
 * registered with a registration token (legacy POST /runners, ci_runner_registered). The
 * authentication token is in this answer only; storage keeps its hash.
 */
export async function registerRunner(
  env: Bindings,
  who: RunnerActor,
  input: NewRunner & { version?: string | null },
  how: "created" | "registered",
): Promise<{ ok: true; runner: RunnerRow; token: string } | { ok: false; errors: RunnerSettingsErrors }> {
  const errors = runnerSettingsErrors({ tagList: normaliseTags(input.tagList), runUntagged: input.runUntagged ?? true, maximumTimeout: input.maximumTimeout ?? null });
  if (errors) return { ok: false, errors };
  const db = getDb(env.DB);
  let { runner, token } = await createRunner(db, input);
  if (input.version) runner = await updateRunner(db, runner.id, { version: input.version.slice(0, 64) });
  await audit(env, who, how === "created" ? "ci_runner_created" : "ci_runner_registered", runnerEntity(runner), { ...runnerDetails(runner), project_id: input.projectId ?? null });
  return { ok: true, runner, token };
}

/** A change of settings; absent fields are kept. `paused` is GitLab's pause and resume. */
export interface RunnerChange {
  description?: string;
  paused?: boolean;
  tags?: readonly string[];
  runUntagged?: boolean;
  locked?: boolean;
  accessLevel?: string;
  maximumTimeout?: number;
  maintenanceNote?: string;
}

/** Updates a runner's settings, refused as GitLab's model refuses them; audited with the changed fields. */
export async function updateRunnerSettings(env: Bindings, actor: AuditActor, runner: RunnerRow, change: RunnerChange): Promise<RunnerResult> {
  const patch: Partial<RunnerRow> = {};
  if (change.description !== undefined) patch.description = change.description;
  if (change.paused !== undefined) patch.paused = change.paused;
  if (change.tags !== undefined) patch.tagList = normaliseTags(change.tags);
  if (change.runUntagged !== undefined) patch.runUntagged = change.runUntagged;
  if (change.locked !== undefined) patch.locked = change.locked;
  if (change.accessLevel !== undefined) patch.accessLevel = change.accessLevel;
  if (change.maximumTimeout !== undefined) patch.maximumTimeout = change.maximumTimeout;
  if (change.maintenanceNote !== undefined) patch.maintenanceNote = change.maintenanceNote;
  const next = { ...runner, ...patch };
  const errors = runnerSettingsErrors(next);
  if (errors) return { ok: false, errors };
  const changed = Object.keys(patch).filter((k) => patch[k as keyof RunnerRow] !== runner[k as keyof RunnerRow]);
  if (!changed.length) return { ok: true, runner };
  const updated = await updateRunner(getDb(env.DB), runner.id, patch);
  await audit(env, { actor }, "ci_runner_updated", runnerEntity(updated), { ...runnerDetails(updated), changes: changed.sort() });
  return { ok: true, runner: updated };
}

/** Deletes a runner: by a user (DELETE /runners/:id) or by the runner's own token (DELETE /runners). */
export async function removeRunner(env: Bindings, who: RunnerActor, runner: RunnerRow): Promise<void> {
  await deleteRunner(getDb(env.DB), runner.id);
  await audit(env, who, "ci_runner_unregistered", runnerEntity(runner), runnerDetails(runner));
}

/** Replaces a scope's registration token; the new one is in this answer only. */
export async function resetRegistrationToken(env: Bindings, actor: AuditActor, scope: RegistrationScope): Promise<string> {
  const token = await storeRegistrationToken(getDb(env.DB), scope);
  await audit(env, { actor }, "ci_runner_registration_token_reset", { type: scope.scopeType, id: scope.scopeId }, { scope_type: scope.scopeType });
  return token;
}

/**
 * Enables a runner on a project; false when it already was. `convert`: an instance runner becomes
 * a project runner (the administrators' conversion the schedule keeps below 15.0).
 */
export async function assignRunnerToProject(
  env: Bindings,
  actor: AuditActor,
  runner: RunnerRow,
  project: CheckedProject<"admin_project">,
  convert = false,
): Promise<{ assigned: boolean; runner: RunnerRow }> {
  const projectId = project.id;
  const db = getDb(env.DB);
  if (convert) await updateRunner(db, runner.id, { runnerType: "project_type" });
  if (!(await enableRunner(db, runner.id, projectId))) return { assigned: false, runner };
  const fresh = (await findRunner(db, runner.id))!;
  await audit(env, { actor }, "ci_runner_assigned_to_project", runnerEntity(fresh), { ...runnerDetails(fresh), project_id: projectId });
  return { assigned: true, runner: fresh };
}

/** Disables a runner on a project; false when it was not enabled there. */
export async function unassignRunnerFromProject(env: Bindings, actor: AuditActor, runner: RunnerRow, project: CheckedProject<"admin_project">): Promise<boolean> {
  const projectId = project.id;
  if (!(await disableRunner(getDb(env.DB), runner.id, projectId))) return false;
  await audit(env, { actor }, "ci_runner_unassigned_from_project", runnerEntity(runner), { ...runnerDetails(runner), project_id: projectId });
  return true;
}
