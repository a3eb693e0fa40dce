import { env } from "cloudflare:test";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { applications } from "../../src/db/schema/applications";
import { pendingChanges } from "../../src/db/schema/changes";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { findUserById } from "../../src/db/users";
import { recordBlock } from "../../src/services/accounts/user-state";
import { applicationSubject, recordChange, sweepPendingChanges } from "../../src/services/changes/runner";
import { call, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": a change records its intent with its audit row in one D1 batch,
 * then applies its effects; a crash between the two (simulated by recording only, as the killed
 * request did) is finished by whichever comes first, the retried request or the cron sweep, and
 * an unblock never revives what a block revoked.
 */
const db = () => getDb(env.DB);
const GRANTS = 120;
const userStatus = async (token: string) => (await call("/api/v4/user", { token })).status;
const pendingFor = async (subject: string) => (await db().select().from(pendingChanges).where(eq(pendingChanges.subject, subject))).length;
const audits = async (action: "user_blocked" | "application_deleted", entityId: number) =>
  (await db().select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(entityId))))).length;
const liveRows = async (ids: string[]) =>
  Number(
    (await db().select({ n: sql<number>`count(*)` }).from(oauthTokenFamilies).where(and(sql`${oauthTokenFamilies.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`, sql`${oauthTokenFamilies.status} != 'revoked'`)))[0].n,
  );
/** The cron's run, as if a sweep period had passed since the change was recorded. */
const sweepLater = () => sweepPendingChanges(env, Date.now() + 120_000, { limit: 1000 });

async function interruptedBlock() {
  const admin = await makeUserWithToken({ isAdmin: true });
  const user = await makeUser();
  const { app } = await makeApp();
  const { tokens, ids } = await seedGrants(user.id, app, GRANTS);
  expect(await recordBlock(env, { id: admin.user.id, ip: null }, user.id)).toBe(true);
  // What the killed request left: the state, the intent and the audit row, and no revocation yet.
  expect((await findUserById(db(), user.id))!.state).toBe("blocked");
  expect(await audits("user_blocked", user.id)).toBe(1);
  expect(await pendingFor(`user:${user.id}`)).toBe(1);
  expect(await liveRows(ids)).toBe(GRANTS);
  return { adminToken: admin.token, adminId: admin.user.id, user, tokens, ids };
}

describe("DESIGN Changes that finish: intent first, in one batch with the audit row", () => {
  it("a second record of the same block changes nothing and writes no second audit row (two admins racing)", async () => {
    const b = await interruptedBlock();
    expect(await recordBlock(env, { id: b.adminId, ip: null }, b.user.id)).toBe(false);
    expect(await audits("user_blocked", b.user.id)).toBe(1);
    expect(await pendingFor(`user:${b.user.id}`)).toBe(1);
    await sweepLater();
  });
});

describe("DESIGN Changes that finish: an interrupted block is finished", () => {
  it("by the retried request, which answers 201 true (not null: effects were pending), then null once done", async () => {
    const b = await interruptedBlock();
    const retry = await call(`/api/v4/users/${b.user.id}/block`, { method: "POST", token: b.adminToken });
    expect(retry.status).toBe(201);
    expect(await retry.json()).toBe(true);
    expect(await liveRows(b.ids)).toBe(0);
    for (const t of b.tokens) expect(await userStatus(t)).toBe(401);
    expect(await pendingFor(`user:${b.user.id}`)).toBe(0);
    expect(await audits("user_blocked", b.user.id)).toBe(1);
    const again = await call(`/api/v4/users/${b.user.id}/block`, { method: "POST", token: b.adminToken });
    expect(await again.json()).toBeNull();
  });

  it("by the cron sweep, without any request", async () => {
    const b = await interruptedBlock();
    // A change younger than the sweep's minimum age is left to the request running it.
    await sweepPendingChanges(env, Date.now(), { limit: 1000 });
    expect(await pendingFor(`user:${b.user.id}`)).toBe(1);
    const swept = await sweepLater();
    expect(swept.finished).toBeGreaterThanOrEqual(1);
    expect(await pendingFor(`user:${b.user.id}`)).toBe(0);
    expect(await liveRows(b.ids)).toBe(0);
    for (const t of b.tokens) expect(await userStatus(t)).toBe(401);
  });

  it("unblock after an interrupted block revives nothing: the block's revocations happen first", async () => {
    const b = await interruptedBlock();
    const res = await call(`/api/v4/users/${b.user.id}/unblock`, { method: "POST", token: b.adminToken });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    expect((await findUserById(db(), b.user.id))!.state).toBe("active");
    expect(await liveRows(b.ids)).toBe(0);
    for (const t of b.tokens) expect(await userStatus(t)).toBe(401);
    expect(await pendingFor(`user:${b.user.id}`)).toBe(0);
  });
});

describe("DESIGN Changes that finish: an interrupted application deletion is finished", () => {
  async function interruptedDeletion() {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, GRANTS);
    const recorded = await recordChange(env, {
      kind: "application_deleted",
      subject: applicationSubject(app.id),
      payload: { applicationId: app.id },
      audit: { action: "application_deleted", actor: { id: admin.user.id, ip: null }, entityType: "oauth_application", entityId: app.id },
    });
    expect(recorded).toBe(true);
    return { adminToken: admin.token, app, tokens };
  }

  async function expectDeleted(d: Awaited<ReturnType<typeof interruptedDeletion>>) {
    expect(await db().select().from(applications).where(eq(applications.id, d.app.id))).toEqual([]);
    for (const t of d.tokens) expect(await userStatus(t)).toBe(401);
    expect(await pendingFor(applicationSubject(d.app.id))).toBe(0);
    expect(await audits("application_deleted", d.app.id)).toBe(1);
  }

  it("by the retried DELETE (204, one audit row)", async () => {
    const d = await interruptedDeletion();
    expect((await call(`/api/v4/applications/${d.app.id}`, { method: "DELETE", token: d.adminToken })).status).toBe(204);
    await expectDeleted(d);
  });

  it("by the cron sweep", async () => {
    const d = await interruptedDeletion();
    await sweepLater();
    await expectDeleted(d);
  });
});
