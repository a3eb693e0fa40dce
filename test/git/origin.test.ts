import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { getDb } from "../../src/db/client";
import { listAuditEvents } from "../../src/db/audit";
import { findProject } from "../../src/db/projects";
import { originFetch, repositoryStoragePath } from "../../src/git/origin-client";
import { createProjectRepository } from "../../src/git/provisioning";
import { readBranches } from "../../src/git/repository-reader";
import { SIGNATURE_HEADERS, signParts } from "../../src/git/origin-signature";
import { projectSubject, recordChange, sweepPendingChanges } from "../../src/services/changes/runner";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { basic, gitRequest, makeProject } from "./fixtures";

/**
 * DESIGN "Git over HTTPS": the origin accepts only requests the Worker signed, creates and deletes
 * repositories when projects change, and has a health check the Worker's readiness reports. The
 * origin here is the real program (scripts/git-origin.mjs) that vitest.config.ts starts.
 */
const origin = { url: env.GIT_ORIGIN!, secret: env.GIT_ORIGIN_SECRET! };

async function signedHeaders(method: string, target: string, opts: { date?: number; nonce?: string; secret?: string } = {}) {
  const date = opts.date ?? Math.floor(Date.now() / 1000);
  const nonce = opts.nonce ?? crypto.randomUUID().replaceAll("-", "");
  const contentSha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; // SHA-256 of ""
  const signature = await signParts(opts.secret ?? origin.secret, { method, target, date, nonce, remoteUser: "", contentSha256 });
  return {
    [SIGNATURE_HEADERS.date]: String(date),
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.contentSha256]: contentSha256,
    [SIGNATURE_HEADERS.signature]: signature,
  };
}

async function advertisedRefs(path: string, token: string): Promise<string> {
  const res = await gitRequest(`/${path}.git/info/refs?service=git-upload-pack`, { auth: basic("oauth2", token) });
  expect(res.status).toBe(200);
  return new TextDecoder().decode(await res.arrayBuffer());
}

describe("DESIGN Git over HTTPS: the origin serves only requests the Worker signed", () => {
  it("refuses an unsigned request, a wrong key, a stale time and a replay with 401; serves a fresh signed one once", async () => {
    const target = "/-/health";
    const unsigned = await fetch(`${origin.url}${target}`);
    expect(unsigned.status).toBe(401);
    expect(await unsigned.text()).toContain("x-origin-date");

    const wrongKey = await fetch(`${origin.url}${target}`, { headers: await signedHeaders("GET", target, { secret: "x".repeat(64) }) });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.text()).toContain("bad x-origin-signature");

    const stale = await fetch(`${origin.url}${target}`, { headers: await signedHeaders("GET", target, { date: Math.floor(Date.now() / 1000) - 120 }) });
    expect(stale.status).toBe(401);
    expect(await stale.text()).toContain("stale");

    const headers = await signedHeaders("GET", target);
    const first = await fetch(`${origin.url}${target}`, { headers });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ status: "ok" });
    const replay = await fetch(`${origin.url}${target}`, { headers });
    expect(replay.status).toBe(401);
    expect(await replay.text()).toContain("replay");
  });

  it("a signature covers the request target: a signed health check does not open a repository", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const target = `/${await repositoryStoragePath(project.id)}/info/refs?service=git-upload-pack`;
    const res = await fetch(`${origin.url}${target}`, { headers: await signedHeaders("GET", "/-/health") });
    expect(res.status).toBe(401);
  });

  it("git through the gateway answers 502 when the Worker's secret differs from the origin's", async () => {
    const { project } = await makeProject({ visibility: "public" });
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`http://localhost/${project.pathWithNamespace}.git/info/refs?service=git-upload-pack`),
      withVars(env, { GIT_ORIGIN_SECRET: "another-secret-of-at-least-32-characters" }),
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(502);
  });

  it("repositories are stored by project id as GitLab's hashed storage (@hashed/ab/cd/<sha256 of the id>.git)", async () => {
    // GitLab's documented example: project 1.
    expect(await repositoryStoragePath(1)).toBe("@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git");
  });
});

describe("DESIGN Git over HTTPS: repositories follow their projects", () => {
  it("POST /projects with initialize_with_readme creates the repository with a first commit on the default branch", async () => {
    const { token } = await makeUserWithToken();
    const res = await call("/api/v4/projects", { method: "POST", token, ...json({ name: "With readme", initialize_with_readme: true, default_branch: "trunk" }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { path_with_namespace: string };
    const refs = await advertisedRefs(body.path_with_namespace, token);
    expect(refs).toMatch(/[0-9a-f]{40} refs\/heads\/trunk/);
  });

  it("repositories created at once each get their initial commit (the origin reads git's whole output before it goes on)", async () => {
    // Ids far above any project's here (safe integers): these repositories belong to no project row.
    const base = 9_000_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000_000);
    const projects = Array.from({ length: 24 }, (_, i) => ({ id: base + i, defaultBranch: "main" }));
    const failures = await Promise.all(projects.map((p) => createProjectRepository(env, p, { message: "First", author: { name: "A", email: "a@example.test" }, files: { "README.md": `# ${p.id}\n`, "b.txt": "b\n" } })));
    expect(failures).toEqual(projects.map(() => null));
    for (const p of projects) {
      const { branches } = await readBranches(origin, p.id);
      expect(branches.map((b) => b.name), String(p.id)).toEqual(["main"]);
    }
  });

  it("a renamed project keeps its repository: the new path serves the same refs, the old path is 404", async () => {
    const { token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "Before rename", initialize_with_readme: true }) })).json()) as { id: number; path_with_namespace: string };
    const before = await advertisedRefs(created.path_with_namespace, token);
    const res = await call(`/api/v4/projects/${created.id}`, { token, ...json({ path: "after-rename", name: "After rename" }), method: "PUT" });
    expect(res.status).toBe(200);
    const renamed = (await res.json()) as { path_with_namespace: string; name: string };
    expect(renamed.path_with_namespace).toMatch(/\/after-rename$/);
    expect(renamed.name).toBe("After rename");
    expect(await advertisedRefs(renamed.path_with_namespace, token)).toBe(before);
    const old = await gitRequest(`/${created.path_with_namespace}.git/info/refs?service=git-upload-pack`, { auth: basic("oauth2", token) });
    expect(old.status).toBe(404);
    const events = await listAuditEvents(getDb(env.DB), { offset: 0, limit: 20, entityType: "project", entityId: String(created.id) });
    expect(JSON.stringify(events)).toContain("project_path_updated");
  });

  it("DELETE /projects/:id answers 202, removes the project and, afterwards, its repository at the origin", async () => {
    const { token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "To delete", initialize_with_readme: true }) })).json()) as { id: number; path_with_namespace: string };
    const storage = await repositoryStoragePath(created.id);
    const exists = await originFetch(origin, { method: "GET", target: `/${storage}/info/refs?service=git-upload-pack` });
    expect(await exists.text()).toContain("refs/heads/main");

    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost/api/v4/projects/${created.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } }), env, ctx);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ message: "202 Accepted" });
    await waitOnExecutionContext(ctx);
    expect(await findProject(getDb(env.DB), String(created.id))).toBeNull();
    // The origin's first access would create an empty repository again: only the absence of refs proves removal.
    const after = await originFetch(origin, { method: "GET", target: `/${storage}/info/refs?service=git-upload-pack` });
    expect(await after.text()).not.toContain("refs/heads/");
  });

  it("a repository the origin could not remove is an audit row naming it; the project is deleted anyway", async () => {
    const { token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "Origin down at delete" }) })).json()) as { id: number };
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`http://localhost/api/v4/projects/${created.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } }),
      withVars(env, { GIT_ORIGIN: "http://127.0.0.1:9" }),
      ctx,
    );
    expect(res.status).toBe(202);
    await waitOnExecutionContext(ctx);
    expect(await findProject(getDb(env.DB), String(created.id))).toBeNull();
    const events = await listAuditEvents(getDb(env.DB), { offset: 0, limit: 20, entityType: "project", entityId: String(created.id) });
    const text = JSON.stringify(events);
    expect(text).toContain("project_repository_removal_failed");
    expect(text).toContain(await repositoryStoragePath(created.id));
  });

  it("a developer may not delete (403) and a maintainer may not rename (name: 403)", async () => {
    const { token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "Guarded" }) })).json()) as { id: number };
    const other = await makeUserWithToken();
    await call(`/api/v4/projects/${created.id}/members`, { method: "POST", token, ...json({ user_id: other.user.id, access_level: 40 }) });
    expect((await call(`/api/v4/projects/${created.id}`, { method: "DELETE", token: other.token })).status).toBe(403);
    expect((await call(`/api/v4/projects/${created.id}`, { token: other.token, ...json({ name: "Taken over" }), method: "PUT" })).status).toBe(403);
    expect((await call(`/api/v4/projects/${created.id}`, { token: other.token, ...json({ description: "edited" }), method: "PUT" })).status).toBe(200);
  });
});

describe("GitLab's readiness probe reports the git origin", () => {
  it("GET /-/readiness is ok with the origin up and names the signature problem when the secrets differ", async () => {
    const ok = await call("/-/readiness");
    expect(ok.status).toBe(200);
    // integrity_check reports the last cron run over the whole database, which other test files share: its shape only here (test/setup-tests/integrity.test.ts checks its findings).
    const ready = (await ok.json()) as { integrity_check: { status: string }[] };
    expect(ready).toMatchObject({ status: "ok", db_check: [{ status: "ok" }], git_origin_check: [{ status: "ok" }] });
    expect(ready.integrity_check).toHaveLength(1);
    expect(["ok", "findings"]).toContain(ready.integrity_check[0].status);

    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("http://localhost/-/readiness"), withVars(env, { GIT_ORIGIN_SECRET: "another-secret-of-at-least-32-characters" }), ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; git_origin_check: { status: string; message: string }[] };
    expect(body.status).toBe("failed");
    expect(body.git_origin_check[0].message).toContain("signature");
  });

  it("GIT_ORIGIN set without a GIT_ORIGIN_SECRET of 32 characters is a configuration the service refuses", async () => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("http://localhost/-/health"), withVars(env, { GIT_ORIGIN_SECRET: "short" }), ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("GIT_ORIGIN_SECRET");
  });
});

describe("DESIGN Changes that finish: a project deletion killed after its intent is finished by the cron sweep", () => {
  it("the sweep deletes the rows and removes the repository at the origin; the origin refusing is one removal_failed row and the change stays pending", async () => {
    const { user, token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "Killed delete", initialize_with_readme: true }) })).json()) as { id: number };
    const storage = await repositoryStoragePath(created.id);
    const actor = { id: user.id, ip: null };
    const change = {
      kind: "project_deleted" as const,
      subject: projectSubject(created.id),
      payload: { projectId: created.id, actor },
      audit: { action: "project_destroyed" as const, actor, entityType: "project", entityId: created.id },
    };
    // What a request killed right after its intent left behind: the intent and the audit row only.
    expect(await recordChange(env, change)).toBe(true);
    expect(await findProject(getDb(env.DB), String(created.id))).not.toBeNull();
    const later = Date.now() + 120_000;

    // The origin is down at the first sweep: the rows go, the repository stays, one audit row says so.
    const down = withVars(env, { GIT_ORIGIN: "http://127.0.0.1:9" });
    await sweepPendingChanges(down, later, { limit: 1000 });
    await sweepPendingChanges(down, later, { limit: 1000 });
    expect(await findProject(getDb(env.DB), String(created.id))).toBeNull();
    const events = async () => JSON.stringify(await listAuditEvents(getDb(env.DB), { offset: 0, limit: 20, entityType: "project", entityId: String(created.id) }));
    expect((await events()).split("project_repository_removal_failed").length - 1).toBe(1);
    expect((await originFetch(origin, { method: "GET", target: `/${storage}/info/refs?service=git-upload-pack` })).ok).toBe(true);
    expect(await (await originFetch(origin, { method: "GET", target: `/${storage}/info/refs?service=git-upload-pack` })).text()).toContain("refs/heads/");

    // The origin is back: the next sweep removes the repository and finishes the change.
    await sweepPendingChanges(env, later, { limit: 1000 });
    const after = await originFetch(origin, { method: "GET", target: `/${storage}/info/refs?service=git-upload-pack` });
    expect(await after.text()).not.toContain("refs/heads/");
    expect((await events()).split("project_destroyed").length - 1).toBe(1);
    expect(await recordChange(env, change)).toBe(true); // nothing pending any more: a new intent could be recorded
    await sweepPendingChanges(env, later, { limit: 1000 });
  });
});
