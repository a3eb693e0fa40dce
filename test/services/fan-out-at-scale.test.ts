import { env } from "cloudflare:test";
import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { applications } from "../../src/db/schema/applications";
import { findUserById } from "../../src/db/users";
import { verifyPassword } from "../../src/crypto/password";
import { changePassword } from "../../src/services/accounts/password-change";
import { call, json, makePat, makeUser, makeUserWithToken, TEST_PASSWORD } from "../helpers/fixtures";
import { pendingFor, sweepUntilDone } from "../helpers/changes";
import { seedGrants } from "../helpers/grants";
import { gid } from "../graphql/fixtures";
import { gql } from "../graphql/helpers";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": every fan-out change is tested at 1,000 records, above D1's 100
 * bound parameters a statement (a block of a user with 120 grants answered 500 and revoked nothing).
 * 1,000 grants are more than one invocation's subrequest budget (src/services/changes/slices.ts):
 * the answer ends access at once (test/services/access-ends-when-answered.test.ts), and the cron
 * sweep finishes the rest, so completion is asserted after `sweepUntilDone`.
 *
 * The tests run side by side (`describe.concurrent`): each request that leaves its change pending
 * answers only once every user snapshot is older than the intent (about 10 s, runner.ts
 * outlastStaleSnapshots), and those waits overlap instead of adding up. Each test has its own user,
 * application and administrator, and its sweep takes no change recorded after its own
 * (test/helpers/changes.ts), so none sweeps another's change while that request is applying it.
 */
const GRANTS = 1000;
const db = () => getDb(env.DB);

async function statusCounts(ids: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db()
      .select({ status: oauthTokenFamilies.status, n: sql<number>`count(*)` })
      .from(oauthTokenFamilies)
      .where(inArray(oauthTokenFamilies.id, ids.slice(i, i + 90)))
      .groupBy(oauthTokenFamilies.status);
    for (const r of rows) out[r.status] = (out[r.status] ?? 0) + Number(r.n);
  }
  return out;
}

async function revokedAudits(reason: string, where: { userId?: number; applicationId?: number }): Promise<number> {
  const [row] = await db()
    .select({ n: sql<number>`count(*)` })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, "token_revoked"),
        sql`json_extract(${auditEvents.details}, '$.reason') = ${reason}`,
        where.userId === undefined ? undefined : sql`json_extract(${auditEvents.details}, '$.user_id') = ${where.userId}`,
        where.applicationId === undefined ? undefined : sql`json_extract(${auditEvents.details}, '$.application_id') = ${where.applicationId}`,
      ),
    );
  return Number(row.n);
}


const userStatus = async (token: string) => (await call("/api/v4/user", { token })).status;

describe.concurrent("DESIGN Changes that finish: block at 1,000 grants", { timeout: 180_000 }, () => {
  it("POST /users/:id/block answers 201 true, revokes every grant with one token_revoked row each, and unblock revives none", async () => {
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens, ids } = await seedGrants(user.id, app, GRANTS);
    expect(await userStatus(tokens[0])).toBe(200);

    const res = await call(`/api/v4/users/${user.id}/block`, { method: "POST", token: adminToken });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`user:${user.id}`);
    expect(await statusCounts(ids)).toEqual({ revoked: GRANTS });
    expect(await revokedAudits("user_blocked", { userId: user.id })).toBe(GRANTS);

    expect((await call(`/api/v4/users/${user.id}/unblock`, { method: "POST", token: adminToken })).status).toBe(201);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    expect(await statusCounts(ids)).toEqual({ revoked: GRANTS });
  });
});

describe.concurrent("DESIGN Changes that finish: the other fan-out changes at 1,000 grants", { timeout: 180_000 }, () => {
  it("POST /users/:id/deactivate answers 201 true; every grant is refused while deactivated and none is revoked (GitLab keeps them)", async () => {
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens, ids } = await seedGrants(user.id, app, GRANTS);
    expect(await userStatus(tokens[0])).toBe(200);
    const res = await call(`/api/v4/users/${user.id}/deactivate`, { method: "POST", token: adminToken });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`user:${user.id}`);
    expect(await statusCounts(ids)).toEqual({ active: GRANTS });
  });

  it("a password change drops the user copy of all 1,000 grants, with its audit row, and nothing is left pending after the sweep", async () => {
    const user = await makeUser();
    const { app } = await makeApp();
    await seedGrants(user.id, app, GRANTS);
    const row = (await findUserById(db(), user.id))!;
    await changePassword(env, row, { current: TEST_PASSWORD, password: "a new and long passphrase 42", confirmation: "a new and long passphrase 42" }, null);
    const audits = await db().select().from(auditEvents).where(and(eq(auditEvents.action, "password_changed"), eq(auditEvents.entityId, String(user.id))));
    expect(audits).toHaveLength(1);
    await sweepUntilDone(`user:${user.id}`);
  });

  it("DELETE /applications/:id of an application with 1,000 grants answers 204; every grant revoked and audited, the row gone", async () => {
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, GRANTS);
    const res = await call(`/api/v4/applications/${app.id}`, { method: "DELETE", token: adminToken });
    expect(res.status).toBe(204);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`application:${app.id}`);
    expect(await revokedAudits("application_deleted", { applicationId: app.id })).toBe(GRANTS);
    expect(await db().select().from(applications).where(eq(applications.id, app.id))).toEqual([]);
    expect(await db().select().from(oauthTokenFamilies).where(eq(oauthTokenFamilies.applicationId, app.id))).toEqual([]);
  });

  it("authorizedApplicationRevoke of an application holding 1,000 of the user's grants: this invocation's share answered, every token refused at once, all revoked after the sweep; the application is no longer listed", async () => {
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens, ids } = await seedGrants(user.id, app, GRANTS);
    const pat = await makePat(user.id, ["api"]);
    const r = await gql(`mutation($id: AuthnOauthApplicationID!) { authorizedApplicationRevoke(input: { id: $id }) { revokedGrants errors } }`, {
      variables: { id: gid("Authn::OauthApplication", app.id) },
      token: pat,
    });
    expect(r.body.errors).toBeUndefined();
    const answered = r.body.data.authorizedApplicationRevoke;
    expect(answered.errors).toEqual([]);
    expect(answered.revokedGrants).toBeGreaterThan(0);
    expect(answered.revokedGrants).toBeLessThan(GRANTS);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`user:${user.id}/application:${app.id}`);
    expect(await statusCounts(ids)).toEqual({ revoked: GRANTS });
    const listed = await gql(`{ currentUser { authorizedApplications { count } } }`, { token: pat });
    expect(listed.body.data.currentUser.authorizedApplications.count).toBe(0);
  });

  it("PUT /api/v4/users/:id with a password (set by an administrator): every one of the 1,000 grants refused when it answers, all revoked and nothing pending after the sweep, with one user_updated row", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, GRANTS);
    expect(await userStatus(tokens[0])).toBe(200);
    const password = "a new one, chosen by an administrator 7";

    const res = await call(`/api/v4/users/${user.id}`, { token: admin.token, ...json({ password }), method: "PUT" });
    expect(res.status).toBe(200);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`user:${user.id}`);
    expect(Number((await env.DB.prepare("SELECT count(*) AS n FROM oauth_token_families WHERE user_id = ? AND status != 'revoked'").bind(user.id).first<{ n: number }>())!.n)).toBe(0);
    const audits = await db().select().from(auditEvents).where(and(eq(auditEvents.action, "user_updated"), eq(auditEvents.entityId, String(user.id))));
    expect(audits).toHaveLength(1);
    expect(JSON.parse(audits[0].details).fields).toContain("password");
    expect(await verifyPassword(password, (await findUserById(db(), user.id))!.passwordHash)).toBe(true);
  });

  it("DELETE /users/:id: every grant refused when it answers; after the sweep every grant revoked with one token_revoked row each (reason user_deleted), and the user removed", async () => {
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, GRANTS);
    expect((await call(`/api/v4/users/${user.id}`, { method: "DELETE", token: adminToken })).status).toBe(204);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    await sweepUntilDone(`user:${user.id}`);
    expect(await revokedAudits("user_deleted", { userId: user.id })).toBe(GRANTS);
    expect(await findUserById(db(), user.id)).toBeNull();
  });
});
