import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createPipeline } from "../../src/db/packages";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeProject } from "../helpers/resources";
import { callAt } from "../helpers/versioned";

/** Package registry API (spec part b: GET /projects/:id/packages, pipelines removed in 15.0). */
const owner = await makeUserWithToken();

async function upload(projectId: number, name: string, version: string, file: string, data: string, query = "", token = owner.token, v = "16.0") {
  return callAt(v, `/api/v4/projects/${projectId}/packages/generic/${name}/${version}/${file}${query}`, { method: "PUT", body: data, token });
}

describe("generic packages: upload to R2, download", () => {
  it("PUT stores the file; GET returns the same bytes; select=package_file returns the file with its SHA-256", async () => {
    const project = await makeProject(owner.user.id);
    const res = await upload(project.id, "tool", "1.0.0", "tool.bin", "hello package");
    expect(res.status).toBe(201);
    expect((await res.json()) as Record<string, any>).toEqual({ message: "201 Created" });
    const dl = await callAt("16.0", `/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`, { token: owner.token });
    expect(dl.status).toBe(200);
    expect(await dl.text()).toBe("hello package");
    const sel = await upload(project.id, "tool", "1.0.0", "other.txt", "abc", "?select=package_file");
    expect((await sel.json()) as Record<string, any>).toMatchObject({ file_name: "other.txt", size: 3, file_sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" });
  });
  it("bad names and versions are 400; a guest cannot upload (403); a read_api token cannot (403 insufficient_scope)", async () => {
    const project = await makeProject(owner.user.id);
    expect((await upload(project.id, "bad%20name", "1.0.0", "f", "x")).status).toBe(400);
    const guest = await makeUserWithToken();
    await addMemberTo("project", project.id, guest.user.id, 10);
    expect((await upload(project.id, "tool", "1.0.0", "f", "x", "", guest.token)).status).toBe(403);
    const reader = await makeUserWithToken({ scopes: ["read_api"] });
    await addMemberTo("project", project.id, reader.user.id, 40);
    const scoped = await upload(project.id, "tool", "1.0.0", "f", "x", "", reader.token);
    expect(scoped.status).toBe(403);
    expect(((await scoped.json()) as Record<string, any>).error).toBe("insufficient_scope");
    // A guest of a private project sees the project but may not read its packages (read_package: 403, as GitLab).
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/packages`, { token: guest.token })).status).toBe(403);
  });
});

describe("packages-pipelines-field", () => {
  it("list items carry pipelines at 14.10 (deprecated) and not from 15.0; the pipelines endpoint pages by keyset", async () => {
    const project = await makeProject(owner.user.id);
    const db = getDb(env.DB);
    const p1 = await createPipeline(db, { projectId: project.id, sha: "a".repeat(40), ref: "main" });
    const p2 = await createPipeline(db, { projectId: project.id, sha: "b".repeat(40), ref: "main" });
    await upload(project.id, "lib", "2.0.0", "a.tgz", "1", `?pipeline_id=${p1.id}`);
    await upload(project.id, "lib", "2.0.0", "b.tgz", "2", `?pipeline_id=${p2.id}`);
    const old = await callAt("14.10", `/api/v4/projects/${project.id}/packages`, { token: owner.token });
    expect(old.headers.get("Deprecation")).toBeTruthy();
    const [oldItem] = (await old.json()) as { id: number; pipelines: { id: number }[] }[];
    expect(oldItem.pipelines.map((p) => p.id).sort()).toEqual([p1.id, p2.id].sort());
    const now = await callAt("15.0", `/api/v4/projects/${project.id}/packages`, { token: owner.token });
    expect(now.headers.get("Deprecation")).toBeNull();
    const [item] = (await now.json()) as Record<string, unknown>[];
    expect(item).not.toHaveProperty("pipelines");
    const page1 = await callAt("15.0", `/api/v4/projects/${project.id}/packages/${item.id}/pipelines?per_page=1`, { token: owner.token });
    expect(((await page1.json()) as { id: number }[]).map((p) => p.id)).toEqual([p1.id]);
    const next = /<([^>]+)>; rel="next"/.exec(page1.headers.get("Link") ?? "")![1];
    const page2 = await callAt("15.0", next, { token: owner.token });
    expect(((await page2.json()) as { id: number }[]).map((p) => p.id)).toEqual([p2.id]);
    expect(page2.headers.get("Link")).toBeNull();
  });
  it("an unknown pipeline reference is 404", async () => {
    const project = await makeProject(owner.user.id);
    expect((await upload(project.id, "lib", "1.0.0", "a", "1", "?pipeline_id=999999")).status).toBe(404);
  });
});

describe("package list: pagination, order, filters; get and delete", () => {
  it("orders by name desc, filters by package_name and package_type, paginates with headers", async () => {
    const project = await makeProject(owner.user.id);
    for (const n of ["alpha", "beta", "gamma"]) await upload(project.id, n, "1.0.0", "f", "x");
    const res = await callAt("16.0", `/api/v4/projects/${project.id}/packages?order_by=name&sort=desc&per_page=2`, { token: owner.token });
    expect(((await res.json()) as { name: string }[]).map((p) => p.name)).toEqual(["gamma", "beta"]);
    expect(res.headers.get("X-Total")).toBe("3");
    expect(res.headers.get("X-Next-Page")).toBe("2");
    const byName = await callAt("16.0", `/api/v4/projects/${project.id}/packages?package_name=alp&package_type=generic`, { token: owner.token });
    expect(((await byName.json()) as { name: string }[]).map((p) => p.name)).toEqual(["alpha"]);
    const bad = await callAt("16.0", `/api/v4/projects/${project.id}/packages?order_by=size`, { token: owner.token });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "order_by does not have a valid value" });
    const badType = await callAt("16.0", `/api/v4/projects/${project.id}/packages?package_type=docker`, { token: owner.token });
    expect((await badType.json()) as Record<string, any>).toEqual({ error: "package_type does not have a valid value" });
  });
  it("GET /packages/:id and DELETE (maintainer) remove the package and its file", async () => {
    const project = await makeProject(owner.user.id);
    await upload(project.id, "gone", "1.0.0", "f.bin", "bytes");
    const [pkg] = (await (await callAt("16.0", `/api/v4/projects/${project.id}/packages`, { token: owner.token })).json()) as { id: number }[];
    const one = await callAt("16.0", `/api/v4/projects/${project.id}/packages/${pkg.id}`, { token: owner.token });
    expect((await one.json()) as Record<string, any>).toMatchObject({ id: pkg.id, name: "gone", package_type: "generic" });
    const dev = await makeUserWithToken();
    await addMemberTo("project", project.id, dev.user.id, 30);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/packages/${pkg.id}`, { method: "DELETE", token: dev.token })).status).toBe(403);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/packages/${pkg.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/packages/generic/gone/1.0.0/f.bin`, { token: owner.token })).status).toBe(404);
    const listed = await env.FILES.list({ prefix: `packages/${project.id}/` });
    expect(listed.objects).toHaveLength(0);
  });
});
