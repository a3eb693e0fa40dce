import { describe, expect, it } from "vitest";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { addMemberTo, makeProject } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** Managed licenses (spec part b: approved/blacklisted become allowed/denied in 15.0). */
const owner = await makeUserWithToken();

describe("managed-licenses-approval-names", () => {
  it("at 14.10 approved and blacklisted are accepted (deprecated) and answered with the old names", async () => {
    const project = await makeProject(owner.user.id);
    const res = await callAt("14.10", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name: "MIT", approval_status: "approved" }), token: owner.token });
    expect(res.status).toBe(201);
    expect(res.headers.get("Deprecation")).toBeTruthy();
    expect((await res.json()) as Record<string, any>).toMatchObject({ name: "MIT", approval_status: "approved" });
    const denied = await callAt("14.10", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name: "GPL", approval_status: "denied" }), token: owner.token });
    expect((await denied.json()) as Record<string, any>).toMatchObject({ approval_status: "blacklisted" });
    const list = await callAt("15.0", `/api/v4/projects/${project.id}/managed_licenses`, { token: owner.token });
    expect(((await list.json()) as { approval_status: string }[]).map((l) => l.approval_status)).toEqual(["allowed", "denied"]);
  });
  it("from 15.0 approved and blacklisted are refused with 400 naming allowed and denied", async () => {
    const project = await makeProject(owner.user.id);
    const res = await callAt("15.0", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name: "MIT", approval_status: "blacklisted" }), token: owner.token });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Record<string, any>).error).toContain("denied");
    const ok = await callAt("15.0", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name: "MIT", approval_status: "allowed" }), token: owner.token });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("Deprecation")).toBeNull();
  });
});

describe("managed licenses: get by id or name, patch, delete, roles", () => {
  it("a maintainer patches and deletes; a developer may read but not write; duplicates are 409", async () => {
    const project = await makeProject(owner.user.id);
    const name = unique("Apache-");
    const created = (await (await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name, approval_status: "allowed" }), token: owner.token })).json()) as { id: number };
    const dup = await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses`, { ...body({ name, approval_status: "denied" }), token: owner.token });
    expect(dup.status).toBe(409);
    const byName = await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${encodeURIComponent(name)}`, { token: owner.token });
    expect((await byName.json()) as Record<string, any>).toMatchObject({ id: created.id });
    const dev = await makeUserWithToken();
    await addMemberTo("project", project.id, dev.user.id, 30);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${created.id}`, { token: dev.token })).status).toBe(200);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${created.id}`, { ...body({ approval_status: "denied" }, "PATCH"), token: dev.token })).status).toBe(403);
    const patched = await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${created.id}`, { ...body({ approval_status: "denied" }, "PATCH"), token: owner.token });
    expect((await patched.json()) as Record<string, any>).toMatchObject({ approval_status: "denied" });
    const bad = await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${created.id}`, { ...body({ approval_status: "maybe" }, "PATCH"), token: owner.token });
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "approval_status does not have a valid value" });
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/managed_licenses/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
  });
});
