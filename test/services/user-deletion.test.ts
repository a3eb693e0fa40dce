import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { pendingChanges } from "../../src/db/schema/changes";
import { GHOST_EMAIL } from "../../src/db/user-deletion";
import { findUserById } from "../../src/db/users";
import { recordUserDeletion } from "../../src/services/accounts/user-delete";
import { EFFECTS } from "../../src/services/changes/effects";
import { sweepPendingChanges } from "../../src/services/changes/runner";
import { freshRun } from "../../src/services/changes/slices";
import { call, json, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * GitLab's user deletion (DELETE /api/v4/users/:id; docs/operations.md, "Delete a user") as a change
 * that finishes (DESIGN, "Changes that finish"): everything the user holds is revoked, their personal
 * projects deleted, their contributions moved to the Ghost User (or deleted with hard_delete), the
 * row removed last; an interrupted deletion is finished by the retried request or the cron sweep.
 * A deletion at 1,000 grants is tested beside the other fan-out changes (test/services/fan-out-at-scale.test.ts).
 */
const db = () => getDb(env.DB);
const userStatus = async (token: string) => (await call("/api/v4/user", { token })).status;
const pendingFor = async (userId: number) => (await db().select().from(pendingChanges).where(eq(pendingChanges.subject, `user:${userId}`))).length;
const audits = async (action: "user_destroyed", entityId: number) =>
  (await db().select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(entityId))))).length;
const sweepLater = () => sweepPendingChanges(env, Date.now() + 120_000, { limit: 1000 });
const scalar = async (query: string, ...binds: unknown[]) => (await env.DB.prepare(query).bind(...binds).first<{ n: number }>())!.n;
const ghostId = async () => (await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(GHOST_EMAIL).first<{ id: number }>())?.id;
const deleteCall = (id: number, token: string, query = "") => call(`/api/v4/users/${id}${query}`, { method: "DELETE", token });

/** A user with a token, OAuth grants, a personal project, an owned application, and contributions to another user's project. */
async function contributor() {
  const admin = await makeUserWithToken({ isAdmin: true });
  const user = await makeUser();
  const pat = await makePat(user.id);
  const { app } = await makeApp();
  const { tokens } = await seedGrants(user.id, app, 12, 4);
  const personal = (await (await call("/api/v4/projects", { method: "POST", token: pat, ...json({ name: "Mine" }) })).json()) as { id: number };
  const { app: owned } = await makeApp({ ownerId: user.id });
  const other = await makeUser();
  const { tokens: othersTokens } = await seedGrants(other.id, owned, 3, 3);
  const otherPat = await makePat(other.id);
  const shared = (await (await call("/api/v4/projects", { method: "POST", token: otherPat, ...json({ name: "Shared" }) })).json()) as { id: number };
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO merge_requests (iid, project_id, title, source_branch, target_branch, author_id, merge_user_id, sha, created_at, updated_at) VALUES (1, ?, 'MR', 'f', 'main', ?, ?, 'abc', ?, ?)").bind(shared.id, user.id, user.id, now, now),
    env.DB.prepare("INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at) VALUES (?, 1, 'Issue', ?, ?, ?)").bind(shared.id, user.id, now, now),
    env.DB.prepare("INSERT INTO ci_pipelines (iid, project_id, sha, ref, user_id, created_at, updated_at) VALUES (1, ?, 'abc', 'main', ?, ?, ?)").bind(shared.id, user.id, now, now),
  ]);
  return { admin, user, pat, tokens, othersTokens, personal, owned, shared };
}

async function expectGone(c: Awaited<ReturnType<typeof contributor>>) {
  expect(await findUserById(db(), c.user.id)).toBeNull();
  expect((await call(`/api/v4/users/${c.user.id}`, { token: c.admin.token })).status).toBe(404);
  expect(await userStatus(c.pat)).toBe(401);
  for (const t of [...c.tokens, ...c.othersTokens]) expect(await userStatus(t)).toBe(401);
  expect((await call(`/api/v4/projects/${c.personal.id}`, { token: c.admin.token })).status).toBe(404);
  expect(await scalar("SELECT count(*) AS n FROM oauth_applications WHERE id = ?", c.owned.id)).toBe(0);
  expect(await pendingFor(c.user.id)).toBe(0);
  expect(await audits("user_destroyed", c.user.id)).toBe(1);
}

const contributionsOf = async (projectId: number) => ({
  mergeRequests: (await env.DB.prepare("SELECT author_id AS a, merge_user_id AS m FROM merge_requests WHERE project_id = ?").bind(projectId).all()).results,
  issues: (await env.DB.prepare("SELECT author_id AS a FROM issues WHERE project_id = ?").bind(projectId).all()).results,
  pipelines: (await env.DB.prepare("SELECT user_id AS a FROM ci_pipelines WHERE project_id = ?").bind(projectId).all()).results,
});

describe("GitLab DELETE /users/:id: contributions move to the Ghost User", () => {
  it("answers 204; the user, their tokens, grants, personal project and applications are gone; their merge requests, issues and pipelines are the ghost's", async () => {
    const c = await contributor();
    const res = await deleteCall(c.user.id, c.admin.token);
    expect(res.status).toBe(204);
    await expectGone(c);
    const ghost = (await findUserById(db(), (await ghostId())!))!;
    expect(ghost).toMatchObject({ username: "ghost", state: "blocked", isAdmin: false });
    expect(await contributionsOf(c.shared.id)).toEqual({ mergeRequests: [{ a: ghost.id, m: ghost.id }], issues: [{ a: ghost.id }], pipelines: [{ a: ghost.id }] });
    const [audit] = await db().select().from(auditEvents).where(and(eq(auditEvents.action, "user_destroyed"), eq(auditEvents.entityId, String(c.user.id))));
    expect(JSON.parse(audit.details)).toMatchObject({ username: c.user.username, hard_delete: false });
  });

  it("the Ghost User is created once, on demand, and reused by the next deletion", async () => {
    const first = await contributor();
    expect((await deleteCall(first.user.id, first.admin.token)).status).toBe(204);
    const second = await contributor();
    expect((await deleteCall(second.user.id, second.admin.token)).status).toBe(204);
    expect(await scalar("SELECT count(*) AS n FROM users WHERE email = ?", GHOST_EMAIL)).toBe(1);
    expect((await contributionsOf(second.shared.id)).issues).toEqual([{ a: await ghostId() }]);
  });
});

describe("GitLab DELETE /users/:id?hard_delete=true: contributions are deleted", () => {
  it("answers 204 and deletes the user's merge requests, issues and pipelines (a merged_by reference goes to the ghost)", async () => {
    const c = await contributor();
    expect((await deleteCall(c.user.id, c.admin.token, "?hard_delete=true")).status).toBe(204);
    await expectGone(c);
    expect(await contributionsOf(c.shared.id)).toEqual({ mergeRequests: [], issues: [], pipelines: [] });
  });

  it("a DELETE with Content-Type application/json and no body (python-gitlab's request) is 204; hard_delete in a JSON body is read; a malformed body is GitLab's 400", async () => {
    const c = await contributor();
    const bad = await call(`/api/v4/users/${c.user.id}`, { method: "DELETE", token: c.admin.token, headers: { "Content-Type": "application/json" }, body: '{"hard_delete": ' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: "400 Bad request - malformed JSON" });
    const empty = await call(`/api/v4/users/${c.user.id}`, { method: "DELETE", token: c.admin.token, headers: { "Content-Type": "application/json" } });
    expect(empty.status).toBe(204);
    await expectGone(c);
    const d = await contributor();
    expect((await call(`/api/v4/users/${d.user.id}`, { token: d.admin.token, ...json({ hard_delete: true }), method: "DELETE" })).status).toBe(204);
    expect(await contributionsOf(d.shared.id)).toEqual({ mergeRequests: [], issues: [], pipelines: [] });
  });

  it("hard_delete that is not a boolean is a 400 and deletes nothing", async () => {
    const c = await contributor();
    expect((await deleteCall(c.user.id, c.admin.token, "?hard_delete=maybe")).status).toBe(400);
    expect(await findUserById(db(), c.user.id)).not.toBeNull();
  });
});

describe("GitLab DELETE /users/:id: refusals", () => {
  it("an unknown user is 404 User Not Found", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const res = await deleteCall(999_999_999, token);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 User Not Found" });
  });

  it("a user who is not an administrator is 403 and deletes nothing", async () => {
    const { token } = await makeUserWithToken();
    const victim = await makeUser();
    expect((await deleteCall(victim.id, token)).status).toBe(403);
    expect((await findUserById(db(), victim.id))!.state).toBe("active");
  });

  it("an administrator cannot delete themselves (403)", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const res = await deleteCall(admin.user.id, admin.token);
    expect(res.status).toBe(403);
    expect(await userStatus(admin.token)).toBe(200);
  });

  it("the Ghost User cannot be deleted (403): deleted users' contributions stay attributed", async () => {
    const c = await contributor();
    expect((await deleteCall(c.user.id, c.admin.token)).status).toBe(204);
    expect((await deleteCall((await ghostId())!, c.admin.token)).status).toBe(403);
  });
});

describe("DESIGN Changes that finish: an interrupted user deletion is finished", () => {
  async function interrupted() {
    const c = await contributor();
    // What the killed request left: the user blocked, the intent and the audit row, no effect yet.
    expect(await recordUserDeletion(env, { id: c.admin.user.id, ip: null }, c.user, { hardDelete: false })).toBe(true);
    expect((await findUserById(db(), c.user.id))!.state).toBe("blocked");
    expect(await pendingFor(c.user.id)).toBe(1);
    expect(await audits("user_destroyed", c.user.id)).toBe(1);
    return c;
  }

  it("a second record (two administrators racing) records and audits nothing more", async () => {
    const c = await interrupted();
    expect(await recordUserDeletion(env, { id: c.admin.user.id, ip: null }, c.user, { hardDelete: true })).toBe(false);
    expect(await audits("user_destroyed", c.user.id)).toBe(1);
    await sweepLater();
    await expectGone(c);
  });

  it("by the retried DELETE (204, one user_destroyed row), then 404 once done", async () => {
    const c = await interrupted();
    expect((await deleteCall(c.user.id, c.admin.token)).status).toBe(204);
    await expectGone(c);
    expect((await deleteCall(c.user.id, c.admin.token)).status).toBe(404);
  });

  it("by the cron sweep, without any request", async () => {
    const c = await interrupted();
    await sweepPendingChanges(env, Date.now(), { limit: 1000 });
    expect(await pendingFor(c.user.id)).toBe(1);
    await sweepLater();
    await expectGone(c);
  });

  it("a retried DELETE after the row was removed but before the intent was: 204, never 404 while the change is pending", async () => {
    const c = await interrupted();
    await EFFECTS.user_deleted(env, { userId: c.user.id, hardDelete: false, actor: null }, freshRun());
    expect(await findUserById(db(), c.user.id)).toBeNull();
    expect(await pendingFor(c.user.id)).toBe(1);
    expect((await deleteCall(c.user.id, c.admin.token)).status).toBe(204);
    await expectGone(c);
  });

  it("nothing is revived: an unblock of a user whose deletion is pending finishes the deletion and unblocks no one", async () => {
    const c = await interrupted();
    const res = await call(`/api/v4/users/${c.user.id}/unblock`, { method: "POST", token: c.admin.token });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(false);
    await expectGone(c);
  });
});
