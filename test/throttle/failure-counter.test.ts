import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FailureCounter, ThrottlePolicy } from "../../src/throttle/failure-counter";
import { checkAllowed, currentBans, hitFailure, rateLimitHeaders, resetThrottle, throttleKey } from "../../src/throttle";

const policy: ThrottlePolicy = { limit: 3, windowSeconds: 60, banSeconds: 600 };
const ns = env.FAILURE_COUNTER as unknown as DurableObjectNamespace<FailureCounter>;
const stubFor = (name: string) => ns.get(ns.idFromName(name));
const unique = () => `test-${crypto.randomUUID()}`;

describe("Throttle (DESIGN Hardening: failed authentication per client address)", () => {
  it("Fail2Ban: the failure that reaches the limit starts a ban, reported once; later checks are refused", async () => {
    const key = unique();
    const first = await hitFailure(env, "t", key, { policy });
    expect(first).toMatchObject({ allowed: true, limit: 3, observed: 1, remaining: 2, banStarted: false, retryAfterSeconds: 0 });
    await hitFailure(env, "t", key, { policy });
    const third = await hitFailure(env, "t", key, { policy });
    expect(third).toMatchObject({ allowed: false, observed: 3, remaining: 0, banStarted: true, retryAfterSeconds: 600 });
    const check = await checkAllowed(env, "t", key, { policy });
    expect(check.allowed).toBe(false);
    expect(check.retryAfterSeconds).toBeGreaterThan(590);
    // A failure racing past the check while banned does not start (or audit) a second ban.
    expect((await hitFailure(env, "t", key, { policy })).banStarted).toBe(false);
  });

  it("per client address: another address and another bucket are not affected", async () => {
    const key = unique();
    for (let i = 0; i < 3; i++) await hitFailure(env, "t", key, { policy });
    expect((await checkAllowed(env, "t", key, { policy })).allowed).toBe(false);
    expect((await checkAllowed(env, "t", unique(), { policy })).allowed).toBe(true);
    expect((await checkAllowed(env, "other", key, { policy })).allowed).toBe(true);
  });

  it("the window: failures older than the window no longer count; a ban ends after banSeconds", async () => {
    const stub = stubFor(`t:${unique()}`);
    // Synthetic times in the future, so the cleanup alarm does not fire during the test.
    const t0 = Date.now() + 86_400_000;
    await stub.hit("", t0, policy);
    await stub.hit("", t0 + 1000, policy);
    // 61 s later the window has passed: a fresh count.
    expect(await stub.hit("", t0 + 61_000, policy)).toMatchObject({ allowed: true, observed: 1, banStarted: false });
    await stub.hit("", t0 + 62_000, policy);
    expect(await stub.hit("", t0 + 63_000, policy)).toMatchObject({ allowed: false, banStarted: true });
    expect((await stub.check("", t0 + 63_000 + 599_000, policy)).allowed).toBe(false);
    expect(await stub.check("", t0 + 63_000 + 600_000, policy)).toMatchObject({ allowed: true, observed: 0, remaining: 3 });
  });

  it("sub-keys (account lockout per address): bans are listed and one reset lifts them all", async () => {
    const key = unique();
    for (let i = 0; i < 3; i++) await hitFailure(env, "t", key, { policy, subKey: "203.0.113.7" });
    await hitFailure(env, "t", key, { policy, subKey: "198.51.100.1" });
    expect((await checkAllowed(env, "t", key, { policy, subKey: "203.0.113.7" })).allowed).toBe(false);
    expect((await checkAllowed(env, "t", key, { policy, subKey: "198.51.100.1" })).allowed).toBe(true);
    const bans = await currentBans(env, "t", key);
    expect(bans.map((b) => b.subKey)).toEqual(["203.0.113.7"]);
    expect(await resetThrottle(env, "t", key)).toBe(1);
    expect((await checkAllowed(env, "t", key, { policy, subKey: "203.0.113.7" })).allowed).toBe(true);
    expect(await currentBans(env, "t", key)).toEqual([]);
  });

  it("storage stays bounded: the alarm deletes counters whose window and ban are over", async () => {
    const name = `t:${unique()}`;
    const stub = stubFor(name);
    const past = Date.now() - 3_600_000;
    await stub.hit("old", past, policy);
    await stub.hit("live", Date.now(), policy);
    await runDurableObjectAlarm(stub);
    const keys = await runInDurableObject(stub, (_o, state) => [...state.storage.kv.list({ prefix: "c:" })].map(([k]) => k));
    expect(keys).toEqual(["c:live"]);
  });

  it("GitLab's headers: RateLimit-Limit, -Observed, -Remaining, -Reset (Unix time), -ResetTime, and Retry-After when refused", () => {
    const now = Date.UTC(2026, 10, 23, 9, 0, 0);
    const refused = rateLimitHeaders({ allowed: false, limit: 30, observed: 30, remaining: 0, resetSeconds: 900, retryAfterSeconds: 900 }, now);
    expect(refused).toEqual({
      "RateLimit-Limit": "30",
      "RateLimit-Observed": "30",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": String(now / 1000 + 900),
      "RateLimit-ResetTime": "Mon, 23 Nov 2026 09:15:00 GMT",
      "Retry-After": "900",
    });
    const allowed = rateLimitHeaders({ allowed: true, limit: 30, observed: 2, remaining: 28, resetSeconds: 40, retryAfterSeconds: 0 }, now);
    expect(allowed["Retry-After"]).toBeUndefined();
  });

  it("client address key: CF-Connecting-IP as sent; absent means the shared key 'unknown'; IPv6 counts by /64", () => {
    expect(throttleKey("203.0.113.9")).toBe("203.0.113.9");
    expect(throttleKey(null)).toBe("unknown");
    expect(throttleKey("")).toBe("unknown");
    expect(throttleKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(throttleKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(throttleKey("::1")).toBe("0:0:0:0::/64");
  });

  it("configuration: production defaults from src/config.ts (30 failures a minute, 15-minute ban; lockout 10, 10 minutes)", async () => {
    const { getConfig } = await import("../../src/config");
    expect(getConfig(env).throttle).toEqual({
      failedAuth: { limit: 30, windowSeconds: 60, banSeconds: 900 },
      accountLock: { limit: 10, windowSeconds: 3600, banSeconds: 600 },
      failedBearer: { limit: 600, windowSeconds: 60, banSeconds: 300 },
    });
  });
});
