import { describe, expect, it } from "vitest";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeProject } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** Merge requests API (spec part b: merged_by removed in 15.0, merge_user replaces it). */
const owner = await makeUserWithToken();

async function openMr(projectId: number, title = "Add feature", token = owner.token) {
  const res = await callAt("16.0", `/api/v4/projects/${projectId}/merge_requests`, { ...body({ source_branch: "feature", target_branch: "main", title }), token });
  expect(res.status).toBe(201);
  return (await res.json()) as { iid: number; sha: string; state: string };
}

describe("merge-request-merged-by", () => {
  it("a merged MR has merged_by and merge_user at 14.10 (deprecated), only merge_user from 15.0", async () => {
    const project = await makeProject(owner.user.id);
    const mr = await openMr(project.id);
    const merge = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests/${mr.iid}/merge`, { ...body({ sha: mr.sha }, "PUT"), token: owner.token });
    expect(merge.status).toBe(200);
    expect((await merge.json()) as Record<string, any>).toMatchObject({ state: "merged", merge_user: { id: owner.user.id } });
    const old = await callAt("14.10", `/api/v4/projects/${project.id}/merge_requests/${mr.iid}`, { token: owner.token });
    expect(old.headers.get("Deprecation")).toBeTruthy();
    expect((await old.json()) as Record<string, any>).toMatchObject({ merged_by: { id: owner.user.id, username: owner.user.username }, merge_user: { id: owner.user.id } });
    const now = await callAt("15.0", `/api/v4/projects/${project.id}/merge_requests/${mr.iid}`, { token: owner.token });
    const j = (await now.json()) as Record<string, any>;
    expect(j).not.toHaveProperty("merged_by");
    expect(j.merge_user.id).toBe(owner.user.id);
  });
});

describe("merge requests: create, list, get, update, merge", () => {
  it("lists by state with pagination headers; updates and closes", async () => {
    const project = await makeProject(owner.user.id);
    const a = await openMr(project.id, "First");
    await openMr(project.id, "Second");
    const list = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests?state=opened&per_page=1`, { token: owner.token });
    expect(list.headers.get("X-Total")).toBe("2");
    expect(((await list.json()) as { title: string }[])[0].title).toBe("Second");
    const upd = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests/${a.iid}`, { ...body({ title: "Draft: First", state_event: "close" }, "PUT"), token: owner.token });
    expect((await upd.json()) as Record<string, any>).toMatchObject({ title: "Draft: First", state: "closed", draft: true });
    const closed = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests?state=closed`, { token: owner.token });
    expect(((await closed.json()) as { iid: number }[]).map((m) => m.iid)).toEqual([a.iid]);
    const merge = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests/${a.iid}/merge`, { method: "PUT", token: owner.token });
    expect(merge.status).toBe(405);
  });
  it("merging with a stale sha is 409; two concurrent merges: one succeeds, the other is 405", async () => {
    const project = await makeProject(owner.user.id);
    const mr = await openMr(project.id);
    const stale = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests/${mr.iid}/merge`, { ...body({ sha: "0".repeat(40) }, "PUT"), token: owner.token });
    expect(stale.status).toBe(409);
    const results = await Promise.all(
      [0, 1].map(() => callAt("16.0", `/api/v4/projects/${project.id}/merge_requests/${mr.iid}/merge`, { method: "PUT", token: owner.token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 405]);
  });
  it("concurrent creations get distinct iids", async () => {
    const project = await makeProject(owner.user.id);
    const made = await Promise.all([1, 2, 3].map((i) => openMr(project.id, `mr ${i}`)));
    expect(new Set(made.map((m) => m.iid)).size).toBe(3);
  });
  it("roles and bad parameters: a reporter cannot create (403), a stranger sees 404, missing title is 400", async () => {
    const project = await makeProject(owner.user.id);
    const reporter = await makeUserWithToken();
    await addMemberTo("project", project.id, reporter.user.id, 20);
    const denied = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests`, { ...body({ source_branch: "a", target_branch: "main", title: "x" }), token: reporter.token });
    expect(denied.status).toBe(403);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests`, { token: reporter.token })).status).toBe(200);
    const stranger = await makeUserWithToken();
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests`, { token: stranger.token })).status).toBe(404);
    const missing = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests`, { ...body({ source_branch: "a", target_branch: "main" }), token: owner.token });
    expect(missing.status).toBe(400);
    expect((await missing.json()) as Record<string, any>).toEqual({ error: "title is missing" });
  });
});
