import { describe, expect, it } from "vitest";
import { call, callFrom, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { pendingFor, sweepUntilDone } from "../helpers/changes";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * docs/operations.md, "How changes finish": when a change that ends access answers, no credential it
 * ends works anywhere, although a change of 1,000 grants is applied in slices over several
 * invocations (a subrequest budget each). The grants its answering request did not reach are
 * refused by the intent's state or cutoff (src/db/grant-holder.ts) once every object's user
 * snapshot and every isolate's remembered answer is older than the intent.
 */
const GRANTS = 1000;
const SAMPLE = 50;
/**
 * Probes come from client addresses of their own, PROBES_PER_ADDRESS each: 1,000 refusals from one
 * address would be throttled (429: THROTTLE_FAILED_BEARER_LIMIT is 600 a minute), and an address
 * per probe would start a throttle object per refusal (half the time of checking 1,000 tokens).
 */
const PROBES_PER_ADDRESS = 100;
let probes = 0;
const userStatus = async (token: string) => {
  const n = Math.floor(probes++ / PROBES_PER_ADDRESS);
  return (await callFrom(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`)("/api/v4/user", { token })).status;
};

/**
 * Runs `change` while the sampled tokens keep being used (a client busy during the change), so
 * each sampled family's user snapshot was read just before the intent was recorded: the youngest a
 * stale snapshot can be when the change answers.
 */
async function whileInUse<T>(sample: string[], change: () => Promise<T>): Promise<T> {
  let done = false;
  const answer = change().finally(() => {
    done = true;
  });
  const busy = (async () => {
    while (!done) {
      await Promise.all(sample.map(userStatus));
      // A pass a second: each family's snapshot is re-read within a second of going stale.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  const [out] = await Promise.all([answer, busy]);
  return out;
}
/** The status of every token, 50 requests at a time (each answer is awaited; only the order of waiting changes). */
async function statusesOf(tokens: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < tokens.length; i += 50) out.push(...(await Promise.all(tokens.slice(i, i + 50).map(userStatus))));
  return out;
}
/** SAMPLE tokens spread evenly over the list (families are revoked in id order, which is random). */
const spread = (tokens: string[]) => Array.from({ length: SAMPLE }, (_, i) => tokens[Math.floor((i * tokens.length) / SAMPLE)]);


/** An administrator, and a user holding GRANTS grants of one application. */
async function grantsOfOneUser() {
  const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
  const user = await makeUser();
  const { app } = await makeApp();
  const { tokens } = await seedGrants(user.id, app, GRANTS, GRANTS);
  return { adminToken, user, app, tokens, sample: spread(tokens) };
}

/** Each sampled family holds a young user snapshot (200), and this isolate remembers each answer. */
async function inUse(sample: string[]) {
  for (const t of sample) expect(await userStatus(t)).toBe(200);
}

/**
 * The two tests run side by side: one seeds its grants, sweeps and checks its 1,000 tokens while
 * the other's change waits out its answer (about 10 s: runner.ts outlastStaleSnapshots). Their
 * changes take turns, from the sample's use to the checks right after the answer: a change made
 * while the other is pending would be swept by the other test's sweep (which takes every change
 * recorded before its own, test/helpers/changes.ts) only if it were older, and a turn ends only
 * once its change has been found pending, so neither is swept before its test has looked.
 */
let turn: Promise<unknown> = Promise.resolve();
function inTurn<T>(step: () => Promise<T>): Promise<T> {
  const mine = turn.then(step);
  turn = mine.catch(() => undefined);
  return mine;
}

describe.concurrent("docs/operations.md How changes finish: access ends when the change answers, at 1,000 grants", { timeout: 900_000 }, () => {
  it("POST /users/:id/block: right after 201 true every sampled token of the 1,000 is refused, though the block is still pending; all 1,000 after the sweep", async () => {
    const { adminToken, user, tokens, sample } = await grantsOfOneUser();

    await inTurn(async () => {
      await inUse(sample);
      const res = await whileInUse(sample, () => call(`/api/v4/users/${user.id}/block`, { method: "POST", token: adminToken }));
      expect(res.status).toBe(201);
      expect(await res.json()).toBe(true);
      // Sliced: the request's budget did not reach every grant.
      expect(await pendingFor(`user:${user.id}`)).toBe(1);
      for (const t of sample) expect(await userStatus(t)).toBe(401);
    });

    await sweepUntilDone(`user:${user.id}`);
    expect(await statusesOf(tokens)).toEqual(tokens.map(() => 401));
    expect((await call(`/api/v4/users/${user.id}/unblock`, { method: "POST", token: adminToken })).status).toBe(201);
    for (const t of sample) expect(await userStatus(t)).toBe(401);
  });

  it("DELETE /applications/:id (the users stay active): right after 204 every sampled token of the 1,000 is refused, though the deletion is still pending; all 1,000 after the sweep", async () => {
    const { adminToken, app, tokens, sample } = await grantsOfOneUser();

    await inTurn(async () => {
      await inUse(sample);
      const res = await whileInUse(sample, () => call(`/api/v4/applications/${app.id}`, { method: "DELETE", token: adminToken }));
      expect(res.status).toBe(204);
      expect(await pendingFor(`application:${app.id}`)).toBe(1);
      for (const t of sample) expect(await userStatus(t)).toBe(401);
    });

    await sweepUntilDone(`application:${app.id}`);
    expect(await statusesOf(tokens)).toEqual(tokens.map(() => 401));
  });
});
