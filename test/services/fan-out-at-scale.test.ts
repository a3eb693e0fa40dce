import { env } from "cloudflare:test";
import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { call, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": every fan-out change is tested at 1,000 records, above D1's 100
 * bound parameters a statement (a block of a user with 120 grants answered 500 and revoked nothing).
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

async function revokedAudits(reason: string, userId: number): Promise<number> {
  const [row] = await db()
    .select({ n: sql<number>`count(*)` })
    .from(auditEvents)
    .where(and(eq(auditEvents.action, "token_revoked"), sql`json_extract(${auditEvents.details}, '$.reason') = ${reason}`, sql`json_extract(${auditEvents.details}, '$.user_id') = ${userId}`));
  return Number(row.n);
}

const userStatus = async (token: string) => (await call("/api/v4/user", { token })).status;

describe("DESIGN Changes that finish: block at 1,000 grants", () => {
  it("POST /users/:id/block answers 201 true, revokes every grant with one token_revoked row each, and unblock revives none", async () => {
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens, ids } = await seedGrants(user.id, app, GRANTS);
    expect(await userStatus(tokens[0])).toBe(200);

    const res = await call(`/api/v4/users/${user.id}/block`, { method: "POST", token: adminToken });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    expect(await statusCounts(ids)).toEqual({ revoked: GRANTS });
    expect(await revokedAudits("user_blocked", user.id)).toBe(GRANTS);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);

    expect((await call(`/api/v4/users/${user.id}/unblock`, { method: "POST", token: adminToken })).status).toBe(201);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    expect(await statusCounts(ids)).toEqual({ revoked: GRANTS });
  });
});
