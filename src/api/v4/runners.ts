import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { projectRunnerScope, runnerWhere, type RunnerScope } from "../../db/runner-filters";
import {
  findRunner,
  listRunners,
  listRunnersKeyset,
  runnerProjectIds,
  runnerAccessLevel,
  runnerRequiredLevel,
  runnerProjectsOf,
  type RunnerRow,
} from "../../db/runners";
import { assignRunnerToProject, removeRunner, unassignRunnerFromProject, updateRunnerSettings } from "../../services/runners";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requestActor, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { ApiError, conflict, forbidden, notFound } from "./errors";
import { loadGroup, loadProject } from "./load";
import { optionalBool, parseParams, readParams } from "./validate";
import { parsePage, setKeysetLink, setPaginationHeaders } from "./pagination";
import { renderRunner, renderRunnerDetails, requestedPaused, RunnerSettings } from "./runner-view";
import { RUNNER_ALL_SCOPES, RUNNER_STATUS_SCOPES, runnerFilters } from "./runner-list-params";
import { idParam } from "./params";
import { whenParamIs } from "../../http/router";

/** Runners API (GitLab), gated by the runner rows of the schedule. Registration: runner-registration.ts. */
const runnersApp = new Hono<AppEnv>();

/** Lists with the query's filters: offset pages (count and page in one D1 round trip) or keyset by id. */
async function respondList(c: Context<AppEnv>, scope: RunnerScope, opts: { typeAllowed?: readonly string[]; scopes?: readonly string[] } = {}) {
  const { query, conditions } = runnerFilters(c, opts);
  const db = getDb(c.env.DB);
  const now = Date.now();
  const cond = await runnerWhere(db, scope, conditions, now);
  const page = parsePage(c);
  if (query.pagination === "keyset") {
    const { rows, hasNext } = await listRunnersKeyset(db, cond, query.id_after, page.perPage);
    setKeysetLink(c, page.perPage, hasNext ? rows[rows.length - 1].id : null);
    return c.json(rows.map((r) => renderRunner(c, r, now)));
  }
  const { rows, total, hasNext } = await listRunners(db, { where: cond, orderBy: query.order_by, sort: query.sort, limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total, hasNext);
  return c.json(rows.map((r) => renderRunner(c, r, now)));
}

runnersApp.get("/runners/:id", whenParamIs<AppEnv>("id", "all", requireAuth(READ_API), requireAdmin, (c) => respondList(c, { kind: "all" }, { scopes: RUNNER_ALL_SCOPES })));

runnersApp.get("/runners", requireAuth(READ_API), (c) => {
  const { user } = c.var.principal;
  return respondList(c, user.isAdmin ? { kind: "all" } : { kind: "managedBy", userId: user.id }, { scopes: RUNNER_STATUS_SCOPES });
});

type Access = "read" | "manage";
/** 404 for runners the caller may not see; instance runners are readable by all, managed by admins. */
async function loadRunner(c: Context<AppEnv>, access: Access): Promise<RunnerRow> {
  const id = parseParams(idParam, c.req.param("id"));
  const db = getDb(c.env.DB);
  const runner = await findRunner(db, id);
  if (!runner) throw notFound("Runner Not Found");
  const { user } = c.var.principal;
  if (user.isAdmin) return runner;
  if (runner.runnerType === "instance_type") {
    if (access === "read") return runner;
    throw forbidden();
  }
  if (await mayAccess(c, runner, access)) return runner;
  throw forbidden();
}

async function mayAccess(c: Context<AppEnv>, runner: RunnerRow, access: Access): Promise<boolean> {
  const { user } = c.var.principal;
  return user.isAdmin || (await runnerAccessLevel(getDb(c.env.DB), runner, user.id)) >= runnerRequiredLevel(runner, access);
}

runnersApp.get("/runners/:id", requireAuth(READ_API), async (c) => {
  const runner = await loadRunner(c, "read");
  return c.json(renderRunnerDetails(c, runner, await runnerProjectsOf(getDb(c.env.DB), runner.id)));
});

runnersApp.put("/runners/:id", requireAuth(WRITE_API), async (c) => {
  const runner = await loadRunner(c, "manage");
  const input = parseParams(RunnerSettings, await readParams(c));
  const result = await updateRunnerSettings(c.env, requestActor(c), runner, {
    paused: requestedPaused(c, input, "runner-active-field"),
    description: input.description,
    tags: input.tag_list,
    runUntagged: optionalBool("run_untagged", input.run_untagged),
    locked: optionalBool("locked", input.locked),
    accessLevel: input.access_level,
    maximumTimeout: input.maximum_timeout,
    maintenanceNote: input.maintenance_note,
  });
  if (!result.ok) throw new ApiError(400, { message: result.errors });
  return c.json(renderRunnerDetails(c, result.runner, await runnerProjectsOf(getDb(c.env.DB), runner.id)));
});

runnersApp.delete("/runners/:id", requireAuth(WRITE_API), async (c) => {
  const runner = await loadRunner(c, "manage");
  await removeRunner(c.env, { actor: requestActor(c) }, runner);
  return c.body(null, 204);
});

// Project runners: those enabled on the project, its ancestor groups' runners and instance runners.
runnersApp.get("/projects/:id/runners", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  return respondList(c, projectRunnerScope(project), { scopes: RUNNER_ALL_SCOPES });
});

runnersApp.post("/projects/:id/runners", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  const { runner_id } = parseParams(z.object({ runner_id: idParam }), await readParams(c));
  const db = getDb(c.env.DB);
  const runner = await findRunner(db, runner_id);
  if (!runner) throw notFound("Runner Not Found");
  const g = gate(c);
  if (runner.runnerType === "group_type") throw new ApiError(403, { message: "403 Forbidden - Runner is a group runner" });
  if (runner.runnerType === "instance_type") {
    // Below 15.0 an administrator could convert an instance runner to a project runner by enabling it.
    if (g.isRemoved("runner-instance-to-project-conversion")) {
      throw new ApiError(403, { message: "403 Forbidden - Runner is an instance runner; register a project runner for the project instead" });
    }
    if (!c.var.principal.user.isAdmin) throw forbidden();
    g.markDeprecated("runner-instance-to-project-conversion");
  } else if (!(await mayAccess(c, runner, "manage"))) {
    throw forbidden();
  } else if (runner.locked) {
    throw new ApiError(403, { message: "403 Forbidden - Runner is locked" });
  }
  const { assigned, runner: fresh } = await assignRunnerToProject(c.env, requestActor(c), runner, project, runner.runnerType === "instance_type");
  if (!assigned) throw conflict("Runner was already enabled for this project");
  return c.json(renderRunnerDetails(c, fresh, await runnerProjectsOf(db, runner.id)), 201);
});

runnersApp.delete("/projects/:id/runners/:runner_id", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  const db = getDb(c.env.DB);
  const runnerId = parseParams(idParam, c.req.param("runner_id"));
  const ids = await runnerProjectIds(db, runnerId);
  if (!ids.includes(project.id)) throw notFound("Runner Not Found");
  // GitLab: the owner project of a project runner cannot disable it; delete the runner instead.
  if (ids[0] === project.id && ids.length === 1) throw new ApiError(403, { message: "403 Forbidden - Only one project associated with the runner. Please remove the runner instead" });
  await unassignRunnerFromProject(c.env, requestActor(c), (await findRunner(db, runnerId))!, project);
  return c.body(null, 204);
});

// Group runners: the group's and its ancestors' runners and instance runners.
runnersApp.get("/groups/:id/runners", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"), "maintain_group");
  const g = gate(c);
  if (c.req.query("type") === "project_type") {
    // Always an empty collection; refused from 16.0.
    if (g.isRemoved("runner-group-type-project-type")) {
      throw new ApiError(400, {
        error: "type does not have a valid value; project_type was removed in 16.0, use group_type or instance_type (project runners: GET /projects/:id/runners)",
      });
    }
    g.markDeprecated("runner-group-type-project-type");
    runnerFilters(c); // still validate the other parameters
    const page = parsePage(c);
    setPaginationHeaders(c, page, 0);
    return c.json([]);
  }
  return respondList(c, { kind: "groupAndAncestors", groupId: group.id }, { typeAllowed: ["instance_type", "group_type", "project_type"] });
});

export default runnersApp;
