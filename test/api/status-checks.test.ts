import { describe, expect, it } from "vitest";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeProject } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** External status checks (spec part b, Errors: status required and only pass passes from 15.0). */
const owner = await makeUserWithToken();

async function setup() {
  const project = await makeProject(owner.user.id);
  const check = await callAt("16.0", `/api/v4/projects/${project.id}/external_status_checks`, {
    ...body({ name: "compliance", external_url: "https://checks.example.com/hook" }),
    token: owner.token,
  });
  expect(check.status).toBe(201);
  const mr = await callAt("16.0", `/api/v4/projects/${project.id}/merge_requests`, { ...body({ source_branch: "f", target_branch: "main", title: "t" }), token: owner.token });
  return { project, check: (await check.json()) as { id: number }, mr: (await mr.json()) as { iid: number; sha: string } };
}

const respond = (v: string, s: Awaited<ReturnType<typeof setup>>, status?: string) =>
  callAt(v, `/api/v4/projects/${s.project.id}/merge_requests/${s.mr.iid}/status_check_responses`, {
    ...body({ external_status_check_id: s.check.id, sha: s.mr.sha, ...(status === undefined ? {} : { status }) }),
    token: owner.token,
  });

const checkStatus = async (s: Awaited<ReturnType<typeof setup>>) => {
  const res = await callAt("16.0", `/api/v4/projects/${s.project.id}/merge_requests/${s.mr.iid}/status_checks`, { token: owner.token });
  return ((await res.json()) as { status: string }[])[0].status;
};

describe("status-check-status-required", () => {
  it("at 14.10 a response without status is accepted (deprecated) and passes", async () => {
    const s = await setup();
    expect(await checkStatus(s)).toBe("pending");
    const res = await respond("14.10", s);
    expect(res.status).toBe(201);
    expect(res.headers.get("Deprecation")).toBeTruthy();
    expect(await checkStatus(s)).toBe("passed");
  });
  it("from 15.0 a response without status is rejected with 422", async () => {
    const s = await setup();
    const res = await respond("15.0", s);
    expect(res.status).toBe(422);
    expect(((await res.json()) as Record<string, any>).message).toContain("status");
  });
});

describe("status-check-pass-only", () => {
  it("at 14.10 approved and passed pass", async () => {
    const s = await setup();
    expect((await respond("14.10", s, "approved")).status).toBe(201);
    expect(await checkStatus(s)).toBe("passed");
    await respond("14.10", s, "failed");
    expect(await checkStatus(s)).toBe("failed");
    await respond("14.10", s, "passed");
    expect(await checkStatus(s)).toBe("passed");
  });
  it("from 15.0 only pass passes; approved makes the check fail", async () => {
    const s = await setup();
    await respond("15.0", s, "approved");
    expect(await checkStatus(s)).toBe("failed");
    await respond("15.0", s, "pass");
    expect(await checkStatus(s)).toBe("passed");
    await respond("15.0", s, "passed");
    expect(await checkStatus(s)).toBe("failed");
  });
});

describe("external status checks: management, roles, bad input", () => {
  it("update and delete by a maintainer; a developer cannot create (403); a bad URL is 400", async () => {
    const s = await setup();
    const upd = await callAt("16.0", `/api/v4/projects/${s.project.id}/external_status_checks/${s.check.id}`, { ...body({ name: "renamed" }, "PUT"), token: owner.token });
    expect((await upd.json()) as Record<string, any>).toMatchObject({ id: s.check.id, name: "renamed" });
    const dev = await makeUserWithToken();
    await addMemberTo("project", s.project.id, dev.user.id, 30);
    const denied = await callAt("16.0", `/api/v4/projects/${s.project.id}/external_status_checks`, { ...body({ name: "x", external_url: "https://x.example" }), token: dev.token });
    expect(denied.status).toBe(403);
    const bad = await callAt("16.0", `/api/v4/projects/${s.project.id}/external_status_checks`, { ...body({ name: "y", external_url: "not a url" }), token: owner.token });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "external_url is invalid" });
    const wrongSha = await callAt("16.0", `/api/v4/projects/${s.project.id}/merge_requests/${s.mr.iid}/status_check_responses`, {
      ...body({ external_status_check_id: s.check.id, sha: "nope", status: "pass" }),
      token: owner.token,
    });
    expect(wrongSha.status).toBe(409);
    expect((await callAt("16.0", `/api/v4/projects/${s.project.id}/external_status_checks/${s.check.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    const list = await callAt("16.0", `/api/v4/projects/${s.project.id}/external_status_checks`, { token: owner.token });
    expect((await list.json()) as Record<string, any>).toEqual([]);
  });
});
