import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { makeRunner } from "../helpers/resources";
import { countingEnv } from "../helpers/d1-counting";

/**
 * Performance (issue 5): each runner list request makes at most two D1 queries (the page and its
 * count, sent in one batch), whatever the page. Counted on the real D1 binding through a wrapper
 * that sees every prepared statement and every round trip (test/helpers/d1-counting.ts).
 */
describe("runner lists make at most two D1 queries (the page and its count)", () => {
  it("page 1, a deep page and a keyset page: two statements (one batch) or one, plus the token lookup", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const tag = unique("t");
    for (let i = 0; i < 30; i++) await makeRunner({ runnerType: "instance_type", tagList: [tag] });
    const { env: e, counts } = countingEnv();
    const get = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`http://localhost${path}`, { headers: { Authorization: `Bearer ${admin.token}` } }), e, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBeLessThan(500);
      return res;
    };
    await get("/api/v4/runners/all?per_page=1"); // first start and token last-use out of the way
    // Baseline: the same request refused by parameter validation, after authentication only.
    counts.statements = counts.roundTrips = 0;
    expect((await get("/api/v4/runners/all?status=bogus")).status).toBe(400);
    const auth = { ...counts };
    // The token lookup: since issue 9 a personal access token is checked by its own Durable Object
    // (docs/credentials.md), so authentication costs no D1 statement once the object has loaded.
    expect(auth.statements).toBe(0);
    for (const path of [
      `/api/v4/runners/all?per_page=5&page=1&tag_list=${tag}`,
      `/api/v4/runners/all?per_page=5&page=6&tag_list=${tag}`,
      `/api/v4/runners/all?per_page=5&pagination=keyset&id_after=0&tag_list=${tag}`,
      `/api/v4/runners?per_page=5&status=online`,
    ]) {
      counts.statements = counts.roundTrips = 0;
      const res = await get(path);
      expect(res.status).toBe(200);
      // The wrapper sees the list's own statements (so the bound below can fail).
      expect(counts.statements - auth.statements, path).toBeGreaterThanOrEqual(1);
      expect(counts.statements - auth.statements, path).toBeLessThanOrEqual(2);
      expect(counts.roundTrips - auth.roundTrips, path).toBeLessThanOrEqual(1);
    }
  });
});
