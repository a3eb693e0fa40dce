import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import {
  createStatusCheck,
  deleteStatusCheck,
  findStatusCheck,
  latestResponses,
  listStatusChecks,
  recordStatusCheckResponse,
  updateStatusCheck,
  type StatusCheckRow,
} from "../../db/merge-requests";
import { statusCheckOutcome } from "../../domain/status-checks";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { conflict, notFound } from "./errors";
import { loadProject, uniqueOr400 } from "./load";
import { parseParams, readParams } from "./validate";
import { loadMergeRequest } from "./merge-requests";
import { idParam } from "./params";

/** External status checks (GitLab): the checks of a project and the responses of external services. */
const checks = new Hono<AppEnv>();

const renderCheck = (s: StatusCheckRow) => ({ id: s.id, name: s.name, project_id: s.projectId, external_url: s.externalUrl, protected_branches: [], hmac: false });
const url = z.string().url().max(255).refine((u) => /^https?:/.test(u));

checks.get("/projects/:id/external_status_checks", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "read_status_checks");
  return c.json((await listStatusChecks(getDb(c.env.DB), project.id)).map(renderCheck));
});

checks.post("/projects/:id/external_status_checks", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "admin_project");
  const input = parseParams(z.object({ name: z.string().min(1).max(255), external_url: url }), await readParams(c));
  const check = await uniqueOr400("name", () => createStatusCheck(getDb(c.env.DB), project.id, input.name, input.external_url));
  return c.json(renderCheck(check), 201);
});

async function loadCheck(c: Context<AppEnv>) {
  const { project } = await loadProject(c, c.req.param("id")!, "admin_project");
  const id = parseParams(idParam, c.req.param("check_id"));
  const check = await findStatusCheck(getDb(c.env.DB), project.id, id);
  if (!check) throw notFound();
  return check;
}

checks.put("/projects/:id/external_status_checks/:check_id", requireAuth(WRITE_API), async (c) => {
  const check = await loadCheck(c);
  const input = parseParams(z.object({ name: z.string().min(1).max(255).optional(), external_url: url.optional() }), await readParams(c));
  return c.json(renderCheck(await updateStatusCheck(getDb(c.env.DB), check.id, { name: input.name, externalUrl: input.external_url })));
});

checks.delete("/projects/:id/external_status_checks/:check_id", requireAuth(WRITE_API), async (c) => {
  const check = await loadCheck(c);
  await deleteStatusCheck(getDb(c.env.DB), check.id);
  return c.body(null, 204);
});

checks.get("/projects/:id/merge_requests/:merge_request_iid/status_checks", requireAuth(READ_API), async (c) => {
  const { project, mr } = await loadMergeRequest(c, false);
  const db = getDb(c.env.DB);
  const [list, latest] = await Promise.all([listStatusChecks(db, project.id), latestResponses(db, mr.id, mr.sha)]);
  return c.json(list.map((s) => ({ id: s.id, name: s.name, external_url: s.externalUrl, status: latest.get(s.id) ?? "pending" })));
});

/**
 * A response of an external service. From 15.0 status is required (422 without it) and only pass
 * passes; below 15.0 status is optional and approved/passed pass (status-check-status-required,
 * status-check-pass-only).
 */
checks.post("/projects/:id/merge_requests/:merge_request_iid/status_check_responses", requireAuth(WRITE_API), async (c) => {
  const { mr } = await loadMergeRequest(c, true);
  const input = parseParams(
    z.object({ external_status_check_id: idParam, sha: z.string().min(1), status: z.string().optional() }),
    await readParams(c),
  );
  const g = gate(c);
  const outcome = statusCheckOutcome(input.status, g.version);
  for (const id of outcome.deprecatedIds) g.markDeprecated(id);
  const db = getDb(c.env.DB);
  const check = await findStatusCheck(db, mr.projectId, input.external_status_check_id);
  if (!check) throw notFound("External status check Not Found");
  if (input.sha !== mr.sha) throw conflict("SHA does not match HEAD of source branch");
  const row = await recordStatusCheckResponse(db, mr.id, check.id, input.sha, outcome.outcome);
  return c.json(
    {
      id: row.id,
      merge_request: { id: mr.id, iid: mr.iid, project_id: mr.projectId, title: mr.title, sha: mr.sha },
      external_status_check: renderCheck(check),
      status: outcome.outcome,
    },
    201,
  );
});

export default checks;
