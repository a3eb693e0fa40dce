import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashPassword } from "../../src/crypto/password";
import { getDb } from "../../src/db/client";
import { passwordHashUpdate } from "../../src/db/user-accounts";
import { pendingChanges } from "../../src/db/schema/changes";
import { recordChange, sweepPendingChanges, userSubject } from "../../src/services/changes/runner";
import { call, makeUser } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish": a password someone else sets (an administrator through
 * PUT /api/v4/users/:id, or a mailed reset link) writes the new hash, the intent to end every
 * credential of the user and the audit row in one D1 batch; a crash after it is finished by the
 * cron sweep, so the old password's holder never keeps a grant. The request itself at 1,000 grants
 * is tested beside the other fan-out changes (test/services/fan-out-at-scale.test.ts).
 */
const db = () => getDb(env.DB);
const pendingFor = async (userId: number) => (await db().select().from(pendingChanges).where(eq(pendingChanges.subject, userSubject(userId)))).length;
const NEW_PASSWORD = "a new one, chosen by an administrator 7";

describe("DESIGN Changes that finish: a password set by someone else", () => {
  it("an interrupted replacement (hash and intent written, no effect yet) is finished by the cron sweep: no grant of the old password survives", async () => {
    const admin = await makeUser({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, 120);
    // What a request killed right after its batch left behind.
    const recorded = await recordChange(
      env,
      {
        kind: "password_replaced",
        subject: userSubject(user.id),
        payload: { userId: user.id, actor: { id: admin.id, ip: null }, reason: "password_set_by_admin" },
        audit: { action: "user_updated", actor: { id: admin.id, ip: null }, entityType: "user", entityId: user.id, details: { fields: ["password"] } },
      },
      passwordHashUpdate(db(), user.id, await hashPassword(NEW_PASSWORD), Date.now()),
    );
    expect(recorded).toBe(true);
    expect(await pendingFor(user.id)).toBe(1);
    expect(await call("/api/v4/user", { token: tokens[0] }).then((r) => r.status)).toBe(200);

    await sweepPendingChanges(env, Date.now() + 120_000, { limit: 1000 });
    expect(await pendingFor(user.id)).toBe(0);
    for (const token of tokens) expect((await call("/api/v4/user", { token })).status).toBe(401);
  });
});
