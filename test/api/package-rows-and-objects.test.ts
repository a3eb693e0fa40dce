import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import app from "../../src/app";
import { getDb } from "../../src/db/client";
import { findOrCreatePackage } from "../../src/db/packages";
import { sweepPackageOrphans } from "../../src/services/packages";
import { makeUserWithToken } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";

/**
 * DESIGN, "Changes that finish": rows and objects agree. A generic package file is visible only
 * once its bytes and its rows are both committed (the package and its file in one D1 batch), and
 * the cron sweep removes what a killed upload left: objects under packages/ no row names, and
 * packages without a file.
 */
const owner = await makeUserWithToken();

async function call(method: string, path: string, body?: BodyInit) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost/api/v4${path}`, { method, body, headers: { Authorization: `Bearer ${owner.token}` } }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
const listed = async (projectId: number) => (await (await call("GET", `/projects/${projectId}/packages`)).json()) as { name: string; version: string }[];
const objectsOf = async (projectId: number) => (await env.FILES.list({ prefix: `packages/${projectId}/` })).objects.map((o) => o.key);
const HOUR = 3600_000;

afterEach(async () => {
  await env.DB.prepare("DROP TRIGGER IF EXISTS planted_file_failure").run();
});

describe("generic packages: rows and objects agree (DESIGN, Changes that finish)", () => {
  it("a file whose rows fail to commit leaves no package in the list and no object", async () => {
    const project = await makeProject(owner.user.id);
    // The file row's insert fails, as if the request died after the bytes: the package must not appear alone.
    await env.DB.prepare(
      "CREATE TRIGGER planted_file_failure BEFORE INSERT ON package_files WHEN NEW.file_name = 'dies.bin' BEGIN SELECT RAISE(ABORT, 'planted failure'); END",
    ).run();
    const res = await call("PUT", `/projects/${project.id}/packages/generic/tool/1.0.0/dies.bin`, "bytes that never get a row");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await listed(project.id)).toEqual([]);
    expect(await objectsOf(project.id)).toEqual([]);
  });

  it("an upload makes its package and file visible together, and adds files to an existing package", async () => {
    const project = await makeProject(owner.user.id);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/tool/1.0.0/a.bin`, "first")).status).toBe(201);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/tool/1.0.0/b.bin`, "second")).status).toBe(201);
    const packages = await listed(project.id);
    expect(packages.map((p) => `${p.name}@${p.version}`)).toEqual(["tool@1.0.0"]);
    const files = (await (await call("GET", `/projects/${project.id}/packages/${(packages[0] as unknown as { id: number }).id}/package_files`)).json()) as { file_name: string }[];
    expect(files.map((f) => f.file_name)).toEqual(["a.bin", "b.bin"]);
    const back = await call("GET", `/projects/${project.id}/packages/generic/tool/1.0.0/b.bin`);
    expect(new TextDecoder().decode(await back.arrayBuffer())).toBe("second");
  });

  it("the sweep removes objects no row names and packages without a file once ORPHAN_SWEEP_SECONDS old, and keeps committed ones", async () => {
    const project = await makeProject(owner.user.id);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/kept/1.0.0/kept.bin`, "committed")).status).toBe(201);
    // What an upload killed between its bytes and its rows left, and what an older build left (a package row alone).
    const orphan = `packages/${project.id}/${crypto.randomUUID()}/killed.bin`;
    await env.FILES.put(orphan, "bytes of a killed upload");
    await findOrCreatePackage(getDb(env.DB), project.id, "empty", "1.0.0", "generic", "default");
    expect((await listed(project.id)).map((p) => p.name).sort()).toEqual(["empty", "kept"]);

    // Young ones may still be finishing: left alone.
    await sweepPackageOrphans(env, Date.now());
    expect(await objectsOf(project.id)).toContain(orphan);

    // Each run is bounded (500 objects, 100 packages) and other files' leftovers share this
    // database: run until this project's orphans are gone, at most 200 runs.
    const total = { objects: 0, packages: 0 };
    const orphansLeft = async () => (await objectsOf(project.id)).includes(orphan) || (await listed(project.id)).some((p) => p.name === "empty");
    for (let run = 0; run < 200 && (await orphansLeft()); run++) {
      const swept = await sweepPackageOrphans(env, Date.now() + 2 * HOUR);
      total.objects += swept.objects;
      total.packages += swept.packages;
    }
    expect(total.objects).toBeGreaterThanOrEqual(1);
    expect(total.packages).toBeGreaterThanOrEqual(1);
    expect(await objectsOf(project.id)).not.toContain(orphan);
    expect((await objectsOf(project.id)).length).toBe(1);
    expect((await listed(project.id)).map((p) => p.name)).toEqual(["kept"]);
    const back = await call("GET", `/projects/${project.id}/packages/generic/kept/1.0.0/kept.bin`);
    expect(new TextDecoder().decode(await back.arrayBuffer())).toBe("committed");
  });
});
