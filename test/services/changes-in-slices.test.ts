import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { pendingChanges } from "../../src/db/schema/changes";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { blockUser, unblockUser } from "../../src/services/accounts/user-state";
import { sweepPendingChanges } from "../../src/services/changes/runner";
import { SUBREQUEST_BUDGET } from "../../src/services/changes/slices";
import { call, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { aSweepPeriodAfter } from "../helpers/changes";
import { seedGrants } from "../helpers/grants";
import { subrequestCountingEnv } from "../helpers/subrequest-counting";
import { makeApp } from "../oauth/helpers";

/**
 * docs/operations.md, "How changes finish" (slices): a Worker invocation may make a bounded number
 * of subrequests (Durable Object calls and D1 queries, 1,000 on the Paid plan). A block of a user
 * with 1,000 grants needs about 1,000 object calls, so each invocation applies what fits in
 * SUBREQUEST_BUDGET, records where it stopped, and the next (retry, sweep) continues.
 */
const GRANTS = 1000;
/** What the request reads besides the change (the target user, the moderation checks): counted, outside the effects' budget. */
const REQUEST_OWN = 5;
const db = () => getDb(env.DB);
const pendingFor = async (subject: string) => (await db().select().from(pendingChanges).where(eq(pendingChanges.subject, subject))).length;
const liveOf = async (userId: number) =>
  Number((await db().select({ n: sql<number>`count(*)` }).from(oauthTokenFamilies).where(sql`${oauthTokenFamilies.userId} = ${userId} AND ${oauthTokenFamilies.status} != 'revoked'`))[0].n);
const userStatus = async (token: string) => (await call("/api/v4/user", { token })).status;

/*
 * The two tests run side by side: each block's request answers only once every user snapshot is
 * older than its intent (about 10 s, runner.ts outlastStaleSnapshots), and the waits overlap. Each
 * has its own users and application, its own counting env (one per invocation, reset before each),
 * and the sweeps take no change recorded after the first test's (test/helpers/changes.ts), so the
 * second test's retries alone continue its block.
 */
describe.concurrent("docs/operations.md How changes finish: effects in bounded slices per invocation", { timeout: 240_000 }, () => {
  it("a block of 1,000 grants never exceeds the subrequest budget in one invocation, finishes over sweeps, and unblock revives nothing", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, GRANTS);
    const actor = { id: admin.user.id, ip: null };
    const counting = subrequestCountingEnv();
    const perInvocation: number[] = [];

    // The request: records the block and applies what fits; the change stays pending.
    counting.reset();
    expect(await blockUser(counting.env, actor, user.id)).toBe(true);
    perInvocation.push(counting.count());
    expect(await pendingFor(`user:${user.id}`)).toBe(1);
    const afterRequest = await liveOf(user.id);
    expect(afterRequest).toBeGreaterThan(0);
    expect(afterRequest).toBeLessThan(GRANTS);

    // Unblock while the block is still being applied is refused (403), and changes no state.
    counting.reset();
    await expect(unblockUser(counting.env, actor, user.id)).rejects.toThrow(/still being applied/);
    perInvocation.push(counting.count());

    // The cron sweep continues it, one budget per run (a bounded loop: 1,000 grants need a few runs).
    for (let i = 0; i < 10 && (await pendingFor(`user:${user.id}`)) > 0; i++) {
      counting.reset();
      // Every pending change recorded before it is in reach (other files leave some behind).
      await sweepPendingChanges(counting.env, await aSweepPeriodAfter(`user:${user.id}`), { limit: 1000 });
      perInvocation.push(counting.count());
    }
    expect(await pendingFor(`user:${user.id}`)).toBe(0);
    expect(await liveOf(user.id)).toBe(0);
    for (const n of perInvocation) expect(n).toBeLessThanOrEqual(SUBREQUEST_BUDGET + REQUEST_OWN);
    // The request, the refused unblock (which continued the block within its own budget) and at least one sweep.
    expect(perInvocation.length).toBeGreaterThanOrEqual(3);

    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    counting.reset();
    expect(await unblockUser(counting.env, actor, user.id)).toBe(true);
    expect(counting.count()).toBeLessThanOrEqual(SUBREQUEST_BUDGET + REQUEST_OWN);
    for (const t of tokens) expect(await userStatus(t)).toBe(401);
    expect(await liveOf(user.id)).toBe(0);
  });

  it("a retried block continues where the last invocation stopped: the revocations of each run are new ones, none redone", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    await seedGrants(user.id, app, GRANTS);
    const actor = { id: admin.user.id, ip: null };
    const counting = subrequestCountingEnv();
    const lives: number[] = [GRANTS];
    let answer: true | false | null = true;
    for (let i = 0; i < 10 && answer !== null; i++) {
      counting.reset();
      answer = await blockUser(counting.env, actor, user.id);
      expect(counting.count()).toBeLessThanOrEqual(SUBREQUEST_BUDGET + REQUEST_OWN);
      lives.push(await liveOf(user.id));
    }
    // Each retry answered true while pending, then null once nothing was left; every run made progress.
    expect(answer).toBeNull();
    expect(lives.at(-1)).toBe(0);
    for (let i = 1; i < lives.length - 1; i++) expect(lives[i]).toBeLessThan(lives[i - 1]);
    const audits = Number(
      (await db().all<{ n: number }>(sql`SELECT count(*) AS n FROM audit_events WHERE action = 'token_revoked' AND json_extract(details, '$.user_id') = ${user.id}`))[0].n,
    );
    expect(audits).toBe(GRANTS);
  });
});
