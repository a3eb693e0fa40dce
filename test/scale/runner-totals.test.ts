import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNT_CAP } from "../../src/db/listing";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";

/**
 * GitLab's offset pagination omits X-Total and X-Total-Pages above 10,000 rows (docs/rest-api.md,
 * Pagination); the runner listings' count stops reading there too (docs/scaling.md, "Listings").
 *
 * The file shares its runtime with the other workers files, one file at a time (vitest.config.ts):
 * their runners are listed and counted too, so the expected count is read from D1 at the moment of
 * the request, and the 10,001 runners seeded here are deleted afterwards (they would change every
 * later file's instance lists).
 */
let admin: { token: string };
const BULK = unique("bulk");
const runnerCount = async () => (await env.DB.prepare("SELECT count(*) AS n FROM runners").first<{ n: number }>())!.n;

beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
  await env.DB.prepare(
    `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${COUNT_CAP + 1})
     INSERT INTO runners (runner_type, description, token_hash, created_at) SELECT 'instance_type', ?1 || ' ' || n, ?1 || '-hash-' || n, n FROM s`,
  ).bind(BULK).run();
});

afterAll(async () => {
  await env.DB.prepare("DELETE FROM runners WHERE token_hash LIKE ? || '-hash-%'").bind(BULK).run();
});

describe("runner listings above 10,000 rows: no exact total", () => {
  it("GET /runners/all sends no X-Total or X-Total-Pages, still X-Next-Page and X-Prev-Page", async () => {
    const res = await callAt("16.0", "/api/v4/runners/all?per_page=100&page=2", { token: admin.token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(100);
    expect(res.headers.get("x-total")).toBeNull();
    expect(res.headers.get("x-total-pages")).toBeNull();
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(res.headers.get("x-prev-page")).toBe("1");
  });
  it("the last page has no next page", async () => {
    const n = await runnerCount();
    const last = Math.ceil(n / 100);
    expect(last).toBeGreaterThan(100);
    const res = await callAt("16.0", `/api/v4/runners/all?per_page=100&page=${last}`, { token: admin.token });
    expect(((await res.json()) as unknown[]).length).toBe(n - (last - 1) * 100);
    expect(res.headers.get("x-next-page")).toBe("");
  });
  it("GraphQL count stays exact when asked for (GitLab's CiRunnerConnection.count)", async () => {
    const res = await callAt("16.0", "/api/graphql", {
      token: admin.token,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ runners(first: 1) { count } }" }),
    });
    const count = ((await res.json()) as { data: { runners: { count: number } } }).data.runners.count;
    expect(count).toBeGreaterThan(COUNT_CAP);
    expect(count).toBe(await runnerCount());
  });
});
