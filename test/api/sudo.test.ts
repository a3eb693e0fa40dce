import { env } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { gql } from "../graphql/helpers";
import { call, json, makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";

const db = getDb(env.DB);

async function adminWith(scopes: string[]) {
  const admin = await makeUser({ isAdmin: true });
  return { admin, token: await makePat(admin.id, scopes) };
}

describe("Sudo (GitLab REST API, 'Sudo': an administrator's sudo-scoped token acts as another user)", () => {
  it("GET /user with Sudo: <username> answers as that user, and the use is audited with both identities", async () => {
    const { admin, token } = await adminWith(["api", "sudo"]);
    const alice = await makeUser();
    const res = await call("/api/v4/user", { token, headers: { Sudo: alice.username.toUpperCase() } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe(alice.username);
    const [event] = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "sudo"), eq(auditEvents.entityId, String(alice.id))))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    expect(event.authorId).toBe(admin.id);
    expect(JSON.parse(event.details)).toMatchObject({ as: alice.username, by: admin.username, path: "/api/v4/user" });
  });

  it("Sudo by numeric id, and ?sudo= as GitLab reads both; a project created 'as alice' belongs to alice", async () => {
    const { token } = await adminWith(["api", "sudo"]);
    const alice = await makeUser();
    const byId = await call("/api/v4/user", { token, headers: { Sudo: String(alice.id) } });
    expect(((await byId.json()) as { id: number }).id).toBe(alice.id);
    const path = unique("sudo-project");
    const created = await call(`/api/v4/projects?sudo=${alice.username}`, { token, ...json({ name: path, path }) });
    expect(created.status).toBe(201);
    const project = (await created.json()) as { namespace: { path: string }; owner?: { id: number } };
    expect(project.namespace.path).toBe(alice.username);
  });

  it("acting as a non-administrator loses the administrator's powers (admin-only route → 403)", async () => {
    const { token } = await adminWith(["api", "sudo"]);
    const alice = await makeUser();
    const res = await call("/api/v4/users", { token, ...json({ username: unique("u"), name: "x", email: `${unique("e")}@example.com`, password: "a-Strong-pass-123" }), headers: { Sudo: alice.username, "Content-Type": "application/json" } });
    expect(res.status).toBe(403);
  });

  it("an administrator's token without the sudo scope → 403 insufficient_scope with scope sudo", async () => {
    const { token } = await adminWith(["api"]);
    const alice = await makeUser();
    const res = await call("/api/v4/user", { token, headers: { Sudo: alice.username } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "sudo",
    });
  });

  it("a non-administrator (even with the sudo scope) → 403 'Must be admin to use sudo'", async () => {
    const { token } = await makeUserWithToken({ scopes: ["api", "sudo"] });
    const alice = await makeUser();
    const res = await call("/api/v4/user", { token, headers: { Sudo: alice.username } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: "403 Forbidden - Must be admin to use sudo" });
  });

  it("an unknown user → 404 'User with ID or username ... Not Found'", async () => {
    const { token } = await adminWith(["api", "sudo"]);
    const res = await call("/api/v4/user", { token, headers: { Sudo: "no-such-user-xyz" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 User with ID or username 'no-such-user-xyz' Not Found" });
  });

  it("without a token, Sudo changes nothing: 401", async () => {
    const res = await call("/api/v4/user", { headers: { Sudo: "root" } });
    expect(res.status).toBe(401);
  });
});

describe("Sudo on GraphQL: every family that authenticates tokens honours it", () => {
  it("currentUser is the Sudo user for an administrator's sudo-scoped token", async () => {
    const { token } = await adminWith(["api", "sudo"]);
    const alice = await makeUser();
    const r = await gql("{ currentUser { username } }", { token, headers: { Sudo: alice.username } });
    expect(r.status).toBe(200);
    expect(r.body.data.currentUser.username).toBe(alice.username);
  });

  it("refuses a non-administrator (403), a token without sudo scope (403) and an unknown user (404)", async () => {
    const alice = await makeUser();
    const user = await makeUserWithToken({ scopes: ["api", "sudo"] });
    const notAdmin = await gql("{ currentUser { username } }", { token: user.token, headers: { Sudo: alice.username } });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.errors[0].message).toBe("403 Forbidden - Must be admin to use sudo");
    const noScope = await adminWith(["api"]);
    const scoped = await gql("{ currentUser { username } }", { token: noScope.token, headers: { Sudo: alice.username } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.errors[0].extensions).toMatchObject({ code: "INSUFFICIENT_SCOPE", scope: "sudo" });
    const sudoer = await adminWith(["api", "sudo"]);
    const unknown = await gql("{ currentUser { username } }", { token: sudoer.token, headers: { Sudo: "nobody-here-123" } });
    expect(unknown.status).toBe(404);
  });
});
