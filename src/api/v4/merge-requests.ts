import { Hono, type Context } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../crypto/hash";
import { randomToken } from "../../crypto/random";
import { getDb } from "../../db/client";
import {
  createMergeRequest,
  findMergeRequest,
  listMergeRequests,
  mergeMergeRequest,
  updateMergeRequest,
  usersById,
  type MergeRequestRow,
} from "../../db/merge-requests";
import type { ProjectRow } from "../../db/projects";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { ApiError } from "./errors";
import { iso, loadProject, webUrl } from "./load";
import { parseParams, queryParams, readParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { idParam, intParam } from "./params";

/** Merge requests API (GitLab): merge_user always; merged_by below 15.0 only (merge-request-merged-by). */
const mrs = new Hono<AppEnv>();

type UserMap = Awaited<ReturnType<typeof usersById>>;
const renderUser = (c: Context, users: UserMap, id: number | null) => {
  const u = id === null ? undefined : users.get(id);
  return u ? { id: u.id, username: u.username, name: u.name, state: u.state, avatar_url: null, web_url: webUrl(c, u.username) } : null;
};

export function renderMergeRequest(c: Context<AppEnv>, mr: MergeRequestRow, project: ProjectRow, users: UserMap) {
  const g = gate(c);
  const view: Record<string, unknown> = {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: iso(mr.createdAt),
    updated_at: iso(mr.updatedAt),
    merge_user: renderUser(c, users, mr.mergeUserId),
    merged_at: iso(mr.mergedAt),
    closed_at: iso(mr.closedAt),
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    author: renderUser(c, users, mr.authorId),
    assignee: renderUser(c, users, mr.assigneeId),
    assignees: mr.assigneeId ? [renderUser(c, users, mr.assigneeId)] : [],
    labels: mr.labels ? mr.labels.split(",") : [],
    draft: /^(\[draft\]|\(draft\)|draft:|draft\s-\s)/i.test(mr.title),
    merge_status: mr.state === "opened" ? "can_be_merged" : "unchecked",
    sha: mr.sha,
    merge_commit_sha: mr.mergeCommitSha,
    references: { short: `!${mr.iid}`, full: `${project.pathWithNamespace}!${mr.iid}` },
    web_url: webUrl(c, `${project.pathWithNamespace}/-/merge_requests/${mr.iid}`),
  };
  if (!g.isRemoved("merge-request-merged-by")) {
    view.merged_by = renderUser(c, users, mr.mergeUserId);
    g.markDeprecated("merge-request-merged-by");
  }
  return view;
}

/** Reading merge requests is read_code (guests of private projects do not see them in GitLab); writing, create_merge_request. */
export async function loadMergeRequestProject(c: Context<AppEnv>, write: boolean) {
  const { project, access } = await loadProject(c, c.req.param("id")!, write ? "create_merge_request" : "read_code");
  access.check("read_code");
  return project;
}

export async function loadMergeRequest(c: Context<AppEnv>, write: boolean) {
  const project = await loadMergeRequestProject(c, write);
  const iid = parseParams(idParam, c.req.param("merge_request_iid"));
  const mr = await findMergeRequest(getDb(c.env.DB), project.id, iid);
  if (!mr) throw new ApiError(404, { message: "404 Not found" });
  return { project, mr };
}

const branch = z.string().min(1).max(255).regex(/^[^\s~^:?*[\\]+$/);
const labels = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean).join(","));
const CreateMr = z.object({
  source_branch: branch,
  target_branch: branch,
  title: z.string().min(1).max(255),
  description: z.string().max(100_000).default(""),
  assignee_id: idParam.optional(),
  labels: labels.optional(),
});

async function respondOne(c: Context<AppEnv>, mr: MergeRequestRow, project: ProjectRow, status: 200 | 201 = 200) {
  const users = await usersById(getDb(c.env.DB), [mr.authorId, mr.assigneeId, mr.mergeUserId]);
  return c.json(renderMergeRequest(c, mr, project, users), status);
}

mrs.post("/projects/:id/merge_requests", requireAuth(WRITE_API), async (c) => {
  const project = await loadMergeRequestProject(c, true);
  const input = parseParams(CreateMr, await readParams(c));
  if (input.source_branch === input.target_branch) throw new ApiError(400, { message: ["You can't use same project/branch for source and target"] });
  // No git objects here: the head sha is derived from the branch names and the time.
  const sha = (await sha256Hex(`${project.id}:${input.source_branch}:${randomToken()}`)).slice(0, 40);
  const mr = await createMergeRequest(getDb(c.env.DB), {
    projectId: project.id,
    title: input.title,
    description: input.description,
    sourceBranch: input.source_branch,
    targetBranch: input.target_branch,
    authorId: c.var.principal.user.id,
    assigneeId: input.assignee_id ?? null,
    labels: input.labels ?? "",
    sha,
  });
  return respondOne(c, mr, project, 201);
});

const ListMrs = z.object({
  state: z.enum(["opened", "closed", "merged", "all"]).default("all"),
  order_by: z.enum(["created_at", "updated_at", "title"]).default("created_at"),
  sort: z.enum(["asc", "desc"]).default("desc"),
  search: z.string().optional(),
  source_branch: z.string().optional(),
  target_branch: z.string().optional(),
});

mrs.get("/projects/:id/merge_requests", requireAuth(READ_API), async (c) => {
  const project = await loadMergeRequestProject(c, false);
  const q = parseParams(ListMrs, queryParams(c));
  const page = parsePage(c);
  const db = getDb(c.env.DB);
  const filter = { state: q.state, search: q.search, sourceBranch: q.source_branch, targetBranch: q.target_branch };
  const { rows, total } = await listMergeRequests(db, project.id, { filter, orderBy: q.order_by, sort: q.sort, limit: page.perPage, offset: page.offset });
  const users = await usersById(db, rows.flatMap((r) => [r.authorId, r.assigneeId, r.mergeUserId]));
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((r) => renderMergeRequest(c, r, project, users)));
});

mrs.get("/projects/:id/merge_requests/:merge_request_iid", requireAuth(READ_API), async (c) => {
  const { project, mr } = await loadMergeRequest(c, false);
  return respondOne(c, mr, project);
});

const UpdateMr = z.object({
  title: z.string().min(1).max(255).optional(),
  description: z.string().max(100_000).optional(),
  target_branch: branch.optional(),
  assignee_id: intParam(0).optional(),
  labels: labels.optional(),
  state_event: z.enum(["close", "reopen"]).optional(),
});

mrs.put("/projects/:id/merge_requests/:merge_request_iid", requireAuth(WRITE_API), async (c) => {
  const { project, mr } = await loadMergeRequest(c, true);
  const input = parseParams(UpdateMr, await readParams(c));
  const patch: Partial<MergeRequestRow> = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.description !== undefined) patch.description = input.description;
  if (input.target_branch !== undefined) patch.targetBranch = input.target_branch;
  if (input.assignee_id !== undefined) patch.assigneeId = input.assignee_id || null;
  if (input.labels !== undefined) patch.labels = input.labels;
  if (input.state_event && mr.state !== "merged") {
    patch.state = input.state_event === "close" ? "closed" : "opened";
    patch.closedAt = input.state_event === "close" ? Date.now() : null;
  }
  const updated = await updateMergeRequest(getDb(c.env.DB), mr.id, patch);
  return respondOne(c, updated, project);
});

mrs.put("/projects/:id/merge_requests/:merge_request_iid/merge", requireAuth(WRITE_API), async (c) => {
  const { project, mr } = await loadMergeRequest(c, true);
  const input = parseParams(z.object({ sha: z.string().optional(), merge_commit_message: z.string().optional(), squash: z.unknown().optional() }), await readParams(c));
  if (mr.state !== "opened") throw new ApiError(405, { message: "405 Method Not Allowed" });
  if (input.sha && input.sha !== mr.sha) throw new ApiError(409, { message: "SHA does not match HEAD of source branch" });
  const mergeSha = (await sha256Hex(`${mr.sha}:merge:${randomToken()}`)).slice(0, 40);
  const merged = await mergeMergeRequest(getDb(c.env.DB), mr.id, c.var.principal.user.id, mergeSha);
  // Another request merged it first.
  if (!merged) throw new ApiError(405, { message: "405 Method Not Allowed" });
  return respondOne(c, merged, project);
});

export default mrs;
