import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { findOrCreatePackage } from "../../src/db/packages";
import { checkIntegrityFromCron, FINDING_KINDS, runIntegrityCheck, type IntegrityReport } from "../../src/setup/integrity";
import { call, makeUser, makeUserWithToken, TEST_PASSWORD } from "../helpers/fixtures";
import { familyStub } from "../../src/credentials/oauth-family";
import { tokenRequest } from "../oauth/helpers";
import { makeProject } from "../helpers/resources";
import { pushableProject, pushBlob, pushImage, bytesOf, registryCall } from "../registry/helpers";

/**
 * DESIGN, "Changes that finish": the integrity check reports every disagreement between D1 and R2
 * (docs/operations.md, "Integrity check"); a clean instance reports nothing, and each kind of
 * finding is planted here once. State-sensitive (vitest.config.ts): the instance must start clean.
 */
const HOUR = 3600_000;
/** Past ORPHAN_SWEEP_SECONDS: objects and rows made now count as old, no longer in flight. */
const later = () => Date.now() + 2 * HOUR;
const kindsOf = (r: IntegrityReport) => r.findings.map((f) => f.kind);
const examplesOf = (r: IntegrityReport, kind: string) => r.findings.find((f) => f.kind === kind)?.examples ?? [];

async function packageUpload(token: string, projectId: number, file: string, body: string) {
  const res = await call(`/api/v4/projects/${projectId}/packages/generic/tool/1.0.0/${file}?select=package_file`, { method: "PUT", body, token });
  expect(res.status).toBe(201);
}

describe("the integrity check (DESIGN, Changes that finish)", () => {
  it("a clean instance with images, blobs, package files and an active grant reports nothing", async () => {
    const p = await pushableProject();
    await pushImage(p.name, p.token, "v1");
    await pushBlob(p.name, p.token, bytesOf("a blob pushed before its manifest"));
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    await packageUpload(owner.token, project.id, "clean.bin", "package bytes");
    const granted = await makeUser();
    expect((await tokenRequest({ grant_type: "password", username: granted.username, password: TEST_PASSWORD, scope: "api" })).status).toBe(200);
    const report = await runIntegrityCheck(env, later());
    expect(report.findings).toEqual([]);
    expect(report.complete).toBe(true);
  });

  it("every finding kind has a name and a meaning, each reported once", () => {
    const names = FINDING_KINDS.map((k) => k.kind);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["tag_without_manifest", "manifest_without_blob", "blob_row_without_object", "registry_object_without_row", "package_file_without_object", "package_object_without_row", "package_without_files", "active_grant_of_revoked_family", "unfinished_change"]));
  });

  it("tag_without_manifest: a tag whose manifest row is gone", async () => {
    const p = await pushableProject();
    const image = await pushImage(p.name, p.token, "orphaned-tag");
    await env.DB.prepare("DELETE FROM registry_manifests WHERE digest = ?").bind(image.digest).run();
    const report = await runIntegrityCheck(env);
    expect(examplesOf(report, "tag_without_manifest")).toContain(`${p.name}:orphaned-tag -> ${image.digest}`);
    await env.DB.prepare("DELETE FROM registry_tags WHERE digest = ?").bind(image.digest).run();
  });

  it("manifest_without_blob: a stored manifest names a blob whose row is gone", async () => {
    const p = await pushableProject();
    const image = await pushImage(p.name, p.token, "v1");
    const layer = image.layerDigests[0];
    const { key } = (await env.DB.prepare("SELECT r2_key AS key FROM registry_blobs WHERE digest = ?").bind(layer).first<{ key: string }>())!;
    await env.DB.prepare("DELETE FROM registry_blobs WHERE digest = ?").bind(layer).run();
    const report = await runIntegrityCheck(env);
    expect(examplesOf(report, "manifest_without_blob")).toContain(`${p.name}@${image.digest} -> ${layer}`);
    await registryCall(`/v2/${p.name}/manifests/${image.digest}`, { method: "DELETE", bearer: p.token });
    await env.FILES.delete(key);
  });

  it("blob_row_without_object: a committed blob whose bytes are gone from R2", async () => {
    const p = await pushableProject();
    const digest = await pushBlob(p.name, p.token, bytesOf("bytes that will vanish"));
    const row = (await env.DB.prepare("SELECT r2_key AS key FROM registry_blobs WHERE digest = ?").bind(digest).first<{ key: string }>())!;
    await env.FILES.delete(row.key);
    expect(examplesOf(await runIntegrityCheck(env), "blob_row_without_object")).toContain(digest);
    await env.DB.prepare("DELETE FROM registry_blobs WHERE digest = ?").bind(digest).run();
  });

  it("registry_object_without_row: an object under registry/blobs/ nothing names, once old enough", async () => {
    const key = `registry/blobs/${crypto.randomUUID()}`;
    await env.FILES.put(key, "left by a killed request");
    expect(kindsOf(await runIntegrityCheck(env))).not.toContain("registry_object_without_row");
    expect(examplesOf(await runIntegrityCheck(env, later()), "registry_object_without_row")).toContain(key);
    await env.FILES.delete(key);
  });

  it("package_file_without_object: a package file row whose bytes are gone from R2", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    await packageUpload(owner.token, project.id, "vanishing.bin", "bytes");
    const file = (await env.DB.prepare("SELECT id, package_id AS pkg, r2_key AS key FROM package_files WHERE r2_key LIKE ?").bind(`packages/${project.id}/%`).first<{ id: number; pkg: number; key: string }>())!;
    await env.FILES.delete(file.key);
    expect(examplesOf(await runIntegrityCheck(env), "package_file_without_object")).toContain(`package ${file.pkg} file ${file.id}`);
    await env.DB.prepare("DELETE FROM packages WHERE id = ?").bind(file.pkg).run();
  });

  it("package_object_without_row and package_without_files: what a killed upload left, once old enough", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const key = `packages/${project.id}/${crypto.randomUUID()}/killed.bin`;
    await env.FILES.put(key, "bytes without a row");
    const pkg = await findOrCreatePackage(getDb(env.DB), project.id, "empty", "1.0.0", "generic", "default");
    const young = await runIntegrityCheck(env);
    expect(kindsOf(young)).not.toContain("package_object_without_row");
    expect(kindsOf(young)).not.toContain("package_without_files");
    const old = await runIntegrityCheck(env, later());
    expect(examplesOf(old, "package_object_without_row")).toContain(key);
    expect(examplesOf(old, "package_without_files")).toContain(`project ${project.id} empty@1.0.0 (package ${pkg.id})`);
    await env.FILES.delete(key);
    await env.DB.prepare("DELETE FROM packages WHERE id = ?").bind(pkg.id).run();
  });

  it("active_grant_of_revoked_family: a directory row still active whose family object is revoked", async () => {
    const user = await makeUser();
    const res = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope: "api" });
    expect(res.status).toBe(200);
    const { id } = (await env.DB.prepare("SELECT id FROM oauth_token_families WHERE user_id = ? AND status = 'active'").bind(user.id).first<{ id: string }>())!;
    // The object's half of a revocation happened, the directory's never did.
    await familyStub(env, id).revokeAll(Date.now());
    expect(examplesOf(await runIntegrityCheck(env), "active_grant_of_revoked_family")).toContain(id);
    await env.DB.prepare("UPDATE oauth_token_families SET status = 'revoked', revoked_at = ? WHERE id = ?").bind(Date.now(), id).run();
  });

  it("unfinished_change: a change recorded but not finished, once older than ORPHAN_SWEEP_SECONDS", async () => {
    await env.DB.prepare("INSERT INTO pending_changes (kind, subject, payload, created_at) VALUES ('user_blocked', 'user:999999', '{}', ?)").bind(Date.now()).run();
    expect(kindsOf(await runIntegrityCheck(env))).not.toContain("unfinished_change");
    expect(examplesOf(await runIntegrityCheck(env, later()), "unfinished_change")[0]).toContain("user_blocked user:999999");
    await env.DB.prepare("DELETE FROM pending_changes WHERE subject = 'user:999999'").run();
  });

  it("the cron records findings in the audit log and /-/readiness, then the instance clean again", async () => {
    const key = `registry/blobs/${crypto.randomUUID()}`;
    await env.FILES.put(key, "left by a killed request");
    expect((await checkIntegrityFromCron(env, later())).findings).toBe(1);
    const row = await env.DB.prepare("SELECT details FROM audit_events WHERE action = 'integrity_check' ORDER BY id DESC LIMIT 1").first<{ details: string }>();
    expect(JSON.parse(row!.details).findings[0]).toMatchObject({ kind: "registry_object_without_row", count: 1, examples: [key] });
    const ready = (await (await call("/-/readiness")).json()) as { status: string; integrity_check: [{ status: string; findings: Record<string, number> }] };
    expect(ready.status).toBe("ok");
    expect(ready.integrity_check[0]).toMatchObject({ status: "findings", findings: { registry_object_without_row: 1 } });

    await env.FILES.delete(key);
    expect((await checkIntegrityFromCron(env, later())).findings).toBe(0);
    const cleared = (await (await call("/-/readiness")).json()) as { integrity_check: [{ status: string }] };
    expect(cleared.integrity_check[0]).toEqual({ status: "ok" });
    // Clean after clean writes nothing more.
    const before = (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'integrity_check'").first<{ n: number }>())!.n;
    await checkIntegrityFromCron(env, later());
    expect((await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'integrity_check'").first<{ n: number }>())!.n).toBe(before);
  });

  it("GET /api/v4/admin/integrity runs the check for administrators only", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUserWithToken();
    expect((await call("/api/v4/admin/integrity", { token: user.token })).status).toBe(403);
    expect((await call("/api/v4/admin/integrity")).status).toBe(401);
    const res = await call("/api/v4/admin/integrity", { token: admin.token });
    expect(res.status).toBe(200);
    const report = (await res.json()) as IntegrityReport;
    expect(report.findings).toEqual([]);
    expect(typeof report.checked_at).toBe("string");
  });
});
