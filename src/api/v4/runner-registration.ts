import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findRegistrationScope, findRunnerByToken, recordContact, type NewRunner } from "../../db/runners";
import { registerRunner, removeRunner, resetRegistrationToken } from "../../services/runners";
import type { AppEnv } from "../../env";
import { requestActor, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { ApiError, forbidden, invalidParam } from "./errors";
import { loadGroup, loadProject } from "./load";
import { optionalBool, parseParams, readParams } from "./validate";
import { requestedPaused, RunnerSettings } from "./runner-view";
import { idParam } from "./params";
import { clientAddress } from "../../http/client-address";

/**
 * Runner creation and contact (GitLab): POST /user/runners (the current workflow, authenticated by
 * a user token), the legacy POST /runners with a registration token, POST /runners/verify and
 * DELETE /runners with the runner's own token, and the registration-token resets.
 */
const registration = new Hono<AppEnv>();

const tokenResponse = (id: number, token: string) => ({ id, token, token_expires_at: null });

function settingsFrom(c: Context<AppEnv>, input: z.infer<typeof RunnerSettings>): Partial<NewRunner> {
  return {
    description: input.description,
    paused: requestedPaused(c, input, "runner-registration-active") ?? false,
    locked: optionalBool("locked", input.locked),
    runUntagged: optionalBool("run_untagged", input.run_untagged),
    tagList: input.tag_list,
    accessLevel: input.access_level,
    maximumTimeout: input.maximum_timeout,
    maintenanceNote: input.maintenance_note,
  };
}

const UserRunner = RunnerSettings.extend({
  runner_type: z.enum(["instance_type", "group_type", "project_type"]),
  group_id: idParam.optional(),
  project_id: idParam.optional(),
});

registration.post("/user/runners", requireAuth(WRITE_API), async (c) => {
  const input = parseParams(UserRunner, await readParams(c));
  const base: NewRunner = { runnerType: input.runner_type, creatorId: c.var.principal.user.id, ...settingsFrom(c, input) };
  if (input.runner_type === "instance_type") {
    if (!c.var.principal.user.isAdmin) throw forbidden();
  } else if (input.runner_type === "group_type") {
    if (!input.group_id) throw invalidParam("group_id", "is missing");
    base.groupId = (await loadGroup(c, String(input.group_id), "admin_group")).group.id;
  } else {
    if (!input.project_id) throw invalidParam("project_id", "is missing");
    base.projectId = (await loadProject(c, String(input.project_id), "admin_project")).project.id;
  }
  const created = await registerRunner(c.env, { actor: requestActor(c) }, base, "created");
  if (!created.ok) throw new ApiError(400, { message: created.errors });
  return c.json(tokenResponse(created.runner.id, created.token), 201);
});

const LegacyRegistration = RunnerSettings.extend({
  token: z.string().min(1),
  info: z.unknown().optional(),
});

/** Legacy registration: the registration token decides the runner's type and owner. */
registration.post("/runners", async (c) => {
  const input = parseParams(LegacyRegistration, await readParams(c));
  const db = getDb(c.env.DB);
  const scope = await findRegistrationScope(db, input.token);
  if (!scope) throw forbidden();
  const settings = settingsFrom(c, input);
  const info = input.info && typeof input.info === "object" ? (input.info as Record<string, unknown>) : {};
  const base: NewRunner =
    scope.scopeType === "instance"
      ? { runnerType: "instance_type", ...settings }
      : scope.scopeType === "group"
        ? { runnerType: "group_type", groupId: scope.scopeId, ...settings }
        : { runnerType: "project_type", projectId: scope.scopeId, ...settings };
  const version = typeof info.version === "string" ? info.version : null;
  const created = await registerRunner(c.env, { ip: clientAddress(c.req.raw, c.env) }, { ...base, version }, "registered");
  if (!created.ok) throw new ApiError(400, { message: created.errors });
  return c.json(tokenResponse(created.runner.id, created.token), 201);
});

/** A runner checks its credentials; the contact is recorded (contacted_at), as a job request would. */
registration.post("/runners/verify", async (c) => {
  const { token } = parseParams(z.object({ token: z.string().min(1) }), await readParams(c));
  const db = getDb(c.env.DB);
  const runner = await findRunnerByToken(db, token);
  if (!runner) throw forbidden();
  await recordContact(db, runner.id, Date.now(), clientAddress(c.req.raw, c.env));
  return c.json(tokenResponse(runner.id, token));
});

registration.delete("/runners", async (c) => {
  const { token } = parseParams(z.object({ token: z.string().min(1) }), await readParams(c));
  const db = getDb(c.env.DB);
  const runner = await findRunnerByToken(db, token);
  if (!runner) throw forbidden();
  await removeRunner(c.env, { ip: clientAddress(c.req.raw, c.env) }, runner);
  return c.body(null, 204);
});

// Registration tokens, shown once (only their SHA-256 is stored).
registration.post("/runners/reset_registration_token", requireAuth(WRITE_API), requireAdmin, async (c) => {
  const token = await resetRegistrationToken(c.env, requestActor(c), { scopeType: "instance", scopeId: 0 });
  return c.json({ token, token_expires_at: null }, 201);
});

registration.post("/projects/:id/runners/reset_registration_token", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  const token = await resetRegistrationToken(c.env, requestActor(c), { scopeType: "project", scopeId: project.id });
  return c.json({ token, token_expires_at: null }, 201);
});

registration.post("/groups/:id/runners/reset_registration_token", requireAuth(WRITE_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"), "admin_group");
  const token = await resetRegistrationToken(c.env, requestActor(c), { scopeType: "group", scopeId: group.id });
  return c.json({ token, token_expires_at: null }, 201);
});

export default registration;
