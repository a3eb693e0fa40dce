import { and, eq, inArray, or, type SQL } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { groupAncestry } from "../../db/projects";
import {
  deleteRunner,
  disableRunner,
  enableRunner,
  findRunner,
  listRunners,
  listRunnersKeyset,
  normaliseTags,
  runnersAvailableToProject,
  runnerProjectIds,
  runnerAccessLevel,
  runnerRequiredLevel,
  runnerProjectsOf,
  updateRunner,
  type RunnerRow,
} from "../../db/runners";
import { runners as runnersTable } from "../../db/schema/runners";
import { AccessLevel } from "../../domain/access";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAdmin, requireAuth, WRITE_API } from "./auth";
import { ApiError, conflict, forbidden, notFound } from "./errors";
import { loadGroup, loadProject } from "./load";
import { optionalBool, parseParams, readParams, validate } from "./validate";
import { parsePage, setKeysetLink, setPaginationHeaders } from "./pagination";
import {
  renderRunner,
  renderRunnerDetails,
  requestedPaused,
  RUNNER_ALL_SCOPES,
  RUNNER_STATUS_SCOPES,
  RunnerSettings,
  runnerFilters,
  runnersManagedBy,
} from "./runner-view";
import { idParam } from "./params";
import { whenParamIs } from "../../http/router";

/** Runners API (GitLab), gated by the runner rows of the schedule. Registration: runner-registration.ts. */
const runnersApp = new Hono<AppEnv>();

/** Lists with the query's filters: offset pages (count and page in one D1 round trip) or keyset by id. */
async function respondList(c: Context<AppEnv>, scope: SQL | undefined, opts: { typeAllowed?: readonly string[]; scopes?: readonly string[] } = {}) {
  const { query, where } = runnerFilters(c, opts);
  const cond = and(scope, ...where);
  const db = getDb(c.env.DB);
  const page = parsePage(c);
  const now = Date.now();
  if (query.pagination === "keyset") {
    const { rows, hasNext } = await listRunnersKeyset(db, cond, query.id_after, page.perPage);
    setKeysetLink(c, page.perPage, hasNext ? rows[rows.length - 1].id : null);
    return c.json(rows.map((r) => renderRunner(c, r, now)));
  }
  const { rows, total } = await listRunners(db, { where: cond, orderBy: query.order_by, sort: query.sort, limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((r) => renderRunner(c, r, now)));
}

runnersApp.get("/runners/:id", whenParamIs<AppEnv>("id", "all", requireAuth(READ_API), requireAdmin, (c) => respondList(c, undefined, { scopes: RUNNER_ALL_SCOPES })));

runnersApp.get("/runners", requireAuth(READ_API), (c) => {
  const { user } = c.var.principal;
  return respondList(c, user.isAdmin ? undefined : runnersManagedBy(user.id), { scopes: RUNNER_STATUS_SCOPES });
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
  const patch: Partial<RunnerRow> = {};
  const paused = requestedPaused(c, input, "runner-active-field");
  if (paused !== undefined) patch.paused = paused;
  if (input.description !== undefined) patch.description = input.description;
  if (input.tag_list !== undefined) patch.tagList = normaliseTags(input.tag_list);
  const runUntagged = optionalBool("run_untagged", input.run_untagged);
  if (runUntagged !== undefined) patch.runUntagged = runUntagged;
  const locked = optionalBool("locked", input.locked);
  if (locked !== undefined) patch.locked = locked;
  if (input.access_level !== undefined) patch.accessLevel = input.access_level;
  if (input.maximum_timeout !== undefined) patch.maximumTimeout = input.maximum_timeout;
  if (input.maintenance_note !== undefined) patch.maintenanceNote = input.maintenance_note;
  const db = getDb(c.env.DB);
  const updated = Object.keys(patch).length ? await updateRunner(db, runner.id, patch) : runner;
  return c.json(renderRunnerDetails(c, updated, await runnerProjectsOf(db, runner.id)));
});

runnersApp.delete("/runners/:id", requireAuth(WRITE_API), async (c) => {
  const runner = await loadRunner(c, "manage");
  await deleteRunner(getDb(c.env.DB), runner.id);
  return c.body(null, 204);
});

// Project runners: those enabled on the project, its ancestor groups' runners and instance runners.
runnersApp.get("/projects/:id/runners", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), AccessLevel.MAINTAINER);
  return respondList(c, await runnersAvailableToProject(getDb(c.env.DB), project), { scopes: RUNNER_ALL_SCOPES });
});

runnersApp.post("/projects/:id/runners", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), AccessLevel.MAINTAINER);
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
    await updateRunner(db, runner.id, { runnerType: "project_type" });
  } else if (!(await mayAccess(c, runner, "manage"))) {
    throw forbidden();
  } else if (runner.locked) {
    throw new ApiError(403, { message: "403 Forbidden - Runner is locked" });
  }
  if (!(await enableRunner(db, runner.id, project.id))) throw conflict("Runner was already enabled for this project");
  const fresh = (await findRunner(db, runner.id))!;
  return c.json(renderRunnerDetails(c, fresh, await runnerProjectsOf(db, runner.id)), 201);
});

runnersApp.delete("/projects/:id/runners/:runner_id", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), AccessLevel.MAINTAINER);
  const db = getDb(c.env.DB);
  const runnerId = parseParams(idParam, c.req.param("runner_id"));
  const ids = await runnerProjectIds(db, runnerId);
  if (!ids.includes(project.id)) throw notFound("Runner Not Found");
  // GitLab: the owner project of a project runner cannot disable it; delete the runner instead.
  if (ids[0] === project.id && ids.length === 1) throw new ApiError(403, { message: "403 Forbidden - Only one project associated with the runner. Please remove the runner instead" });
  await disableRunner(db, runnerId, project.id);
  return c.body(null, 204);
});

// Group runners: the group's and its ancestors' runners and instance runners.
runnersApp.get("/groups/:id/runners", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"), AccessLevel.MAINTAINER);
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
  const groupIds = await groupAncestry(getDb(c.env.DB), group.id);
  const scope = or(
    eq(runnersTable.runnerType, "instance_type"),
    and(eq(runnersTable.runnerType, "group_type"), inArray(runnersTable.groupId, groupIds)),
  );
  return respondList(c, scope, { typeAllowed: ["instance_type", "group_type", "project_type"] });
});

export default runnersApp;
