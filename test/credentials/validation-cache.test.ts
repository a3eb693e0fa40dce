import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { blockUser } from "../../src/services/accounts/user-state";
import { getConfig, withVars } from "../../src/config";
import { recall, remember, validationCacheStats } from "../../src/credentials/validation-cache";
import type { Bindings } from "../../src/env";
import { REDIRECT, getCode, makeApp, makeUser, pkce, pkceTokens } from "../oauth/helpers";
import { signedInUser } from "../helpers/browser";
import { countingEnv } from "../helpers/d1-counting";
import { countingObjectCalls } from "../helpers/validation-cache";
import { makePat } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { TEST_PASSWORD } from "../helpers/fixtures";
import { enc, header, pluginClient } from "../plugin/client";

/**
 * DESIGN, "Validation cache (bounded staleness)": an isolate remembers a positive validation for at
 * most L seconds and never past the token's expiry; every change that takes access away answers
 * only once no isolate can still remember, so after it answers no request with the credential
 * succeeds anywhere. The test pool runs with the cache off; these tests turn it on.
 */

function cacheEnv(seconds?: string) {
  const family = countingObjectCalls(env.TOKEN_FAMILY);
  const pat = countingObjectCalls(env.PERSONAL_ACCESS_TOKEN);
  const vars = seconds === undefined ? { VALIDATION_CACHE_SECONDS: "" } : { VALIDATION_CACHE_SECONDS: seconds };
  const e: Bindings = withVars({ ...env, TOKEN_FAMILY: family.ns, PERSONAL_ACCESS_TOKEN: pat.ns } as Bindings, vars);
  return { env: e, familyCalls: family.gets, patCalls: pat.gets };
}

/**
 * The races end in refused requests, which the failed-token throttle counts per client address:
 * each test's requests come from an address of their own, so they never throttle another file's.
 */
const testAddress = new WeakMap<Bindings, string>();
const addressOf = (e: Bindings) => {
  if (!testAddress.has(e)) testAddress.set(e, `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`);
  return testAddress.get(e)!;
};

async function send(e: Bindings, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; text: string }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  headers.set("CF-Connecting-IP", addressOf(e));
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), e, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, text };
}

/**
 * Requests with `token` in `loops` concurrent chains while `takeAway` runs, until a while after it
 * answered; returns every request's start time and status and the time of the answer.
 */
async function raceAgainst(e: Bindings, token: string, takeAway: () => Promise<unknown>, path = "/api/v4/user") {
  const seen: { startedAt: number; status: number }[] = [];
  let answeredAt: number | null = null;
  // Each chain goes on until it has made a few requests begun after the answer.
  const loop = async () => {
    let afterAnswer = 0;
    while (afterAnswer < 3) {
      const startedAt = Date.now();
      if (answeredAt !== null && startedAt > answeredAt) afterAnswer++;
      const res = await send(e, path, { token });
      seen.push({ startedAt, status: res.status });
      // A client's pace, not a flood: the change taking access away must get its turn.
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const loops = [loop(), loop(), loop()];
  // Let the loops warm the cache first.
  while (seen.filter((s) => s.status === 200).length < 8) await new Promise((r) => setTimeout(r, 5));
  await takeAway();
  answeredAt = Date.now();
  await Promise.all(loops);
  return { seen, answeredAt };
}

describe("DESIGN, Validation cache: positive answers remembered for at most L", () => {
  it("the default bound is on: VALIDATION_CACHE_SECONDS is 5 when unset", () => {
    expect(getConfig(cacheEnv().env).validationCacheSeconds).toBe(5);
  });

  it("a repeated OAuth-token request within L skips the token's object (counted calls, cache hits)", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const c = cacheEnv("5");
    const hitsBefore = validationCacheStats.hits;
    for (let i = 0; i < 4; i++) expect((await send(c.env, "/api/v4/user", { token })).status).toBe(200);
    expect(c.familyCalls()).toBe(1);
    expect(validationCacheStats.hits - hitsBefore).toBe(3);
  });

  it("a repeated GET /oauth/token/info within L skips the family's object, as the API does (one front door)", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const c = cacheEnv("5");
    const hitsBefore = validationCacheStats.hits;
    for (let i = 0; i < 4; i++) expect((await send(c.env, "/oauth/token/info", { token })).status).toBe(200);
    expect(c.familyCalls()).toBe(1);
    expect(validationCacheStats.hits - hitsBefore).toBe(3);
  });

  it("a repeated PAT request within L skips the token's object", async () => {
    const user = await makeUser();
    const pat = await makePat(user.id);
    const c = cacheEnv("5");
    for (let i = 0; i < 3; i++) expect((await send(c.env, "/api/v4/user", { headers: { "PRIVATE-TOKEN": pat } })).status).toBe(200);
    expect(c.patCalls()).toBe(1);
  });

  it("VALIDATION_CACHE_SECONDS=0: every request asks the token's object", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const c = cacheEnv("0");
    for (let i = 0; i < 3; i++) expect((await send(c.env, "/api/v4/user", { token })).status).toBe(200);
    expect(c.familyCalls()).toBe(3);
  });

  it("the same rule serves userinfo: a repeated /oauth/userinfo within L reads neither the token's object nor D1 (claims and groups remembered)", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD, "openid api");
    const { env: counted, counts } = countingEnv();
    const c = cacheEnv("5");
    const e = { ...c.env, DB: counted.DB } as Bindings;
    const first = await send(e, "/oauth/userinfo", { token });
    expect(first.status).toBe(200);
    counts.roundTrips = 0;
    const familyCalls = c.familyCalls();
    const again = await send(e, "/oauth/userinfo", { token });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toEqual(JSON.parse(first.text));
    expect(c.familyCalls()).toBe(familyCalls);
    expect(counts.roundTrips).toBe(0);
  });

  it("Plugin Call shares the token path: a repeated Call within L skips the token's object", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const c = cacheEnv("5");
    const client = pluginClient("connect", token, async (req) => {
      req.headers.set("CF-Connecting-IP", addressOf(c.env));
      return app.fetch(req, c.env, createExecutionContext());
    });
    for (let i = 0; i < 3; i++) expect((await client.call({ Header: header({ Func: "ping" }), Data: enc("hi") })).Code).toBe(0);
    expect(c.familyCalls()).toBe(1);
  });

  it("an entry lives at most L from before its validation was asked, and never past the token's expiry", () => {
    const c = cacheEnv("5");
    const now = 1_000_000;
    remember(c.env, "k-bound", "v", now, null);
    expect(recall(c.env, "k-bound", now + 4_999)).toBe("v");
    expect(recall(c.env, "k-bound", now + 5_000)).toBeNull();
    remember(c.env, "k-expiry", "v", now, now + 1_000);
    expect(recall(c.env, "k-expiry", now + 999)).toBe("v");
    expect(recall(c.env, "k-expiry", now + 1_000)).toBeNull();
  });

  it("a refusal is never remembered: a revoked token asks its object every time", async () => {
    const { app: client, tokens } = await pkceTokens();
    const c = cacheEnv("1");
    await send(c.env, "/oauth/revoke", { method: "POST", body: new URLSearchParams({ client_id: client.uid, token: tokens.access_token }) });
    const before = c.familyCalls();
    for (let i = 0; i < 2; i++) expect((await send(c.env, "/api/v4/user", { token: tokens.access_token })).status).toBe(401);
    expect(c.familyCalls() - before).toBe(2);
  });
});

/**
 * Each race below waits out the shipped bound (5 s) before its change answers. They share nothing
 * (their own users, tokens, clients and client addresses), so all but the revoke races run side
 * by side (it.concurrent): five 5 s waits overlap instead of adding up. The two revoke races stay
 * alone because they count the process-wide cache hits while their requests run.
 */
describe("DESIGN, Validation cache: after a change that takes access away answers, no request with the credential succeeds", () => {
  it("RFC 7009 /oauth/revoke with requests running concurrently: none begun after the answer succeeds", async () => {
    const { app: client, tokens } = await pkceTokens();
    const c = cacheEnv();
    const hitsBefore = validationCacheStats.hits;
    const { seen, answeredAt } = await raceAgainst(c.env, tokens.access_token, async () => {
      const res = await send(c.env, "/oauth/revoke", { method: "POST", body: new URLSearchParams({ client_id: client.uid, token: tokens.access_token }) });
      expect(res.status).toBe(200);
    });
    // The cache was in use while the requests ran (hits), and the token's object was asked far less often than requests were made.
    expect(validationCacheStats.hits - hitsBefore, "cache hits while the requests ran").toBeGreaterThan(0);
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the answer").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
  });

  it("RFC 7009 /oauth/revoke with token info requests running concurrently (token info takes the front door): none begun after the answer succeeds", async () => {
    const { app: client, tokens } = await pkceTokens();
    const c = cacheEnv();
    const hitsBefore = validationCacheStats.hits;
    const revoke = async () => {
      const res = await send(c.env, "/oauth/revoke", { method: "POST", body: new URLSearchParams({ client_id: client.uid, token: tokens.access_token }) });
      expect(res.status).toBe(200);
    };
    const { seen, answeredAt } = await raceAgainst(c.env, tokens.access_token, revoke, "/oauth/token/info");
    expect(validationCacheStats.hits - hitsBefore, "cache hits while the requests ran").toBeGreaterThan(0);
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the answer").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
  });

  it.concurrent("spec, refresh row (both old tokens are invalidated): with requests running concurrently on the replaced access token, none begun after the new pair was answered succeeds", async () => {
    const { app: client, tokens } = await pkceTokens();
    const c = cacheEnv();
    let fresh: { access_token: string } | null = null;
    const { seen, answeredAt } = await raceAgainst(c.env, tokens.access_token, async () => {
      const res = await send(c.env, "/oauth/token", {
        method: "POST",
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: client.uid, refresh_token: tokens.refresh_token }),
      });
      expect(res.status).toBe(200);
      fresh = JSON.parse(res.text);
    });
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the answer").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
    expect((await send(c.env, "/api/v4/user", { token: fresh!.access_token })).status).toBe(200);
  });

  it.concurrent("block (revokes OAuth grants; PATs refused while blocked) with requests running concurrently: none begun after the answer succeeds", async () => {
    const admin = await makeUser({ isAdmin: true });
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const pat = await makePat(user.id);
    const c = cacheEnv();
    const patSeen: { startedAt: number; status: number }[] = [];
    let stop = false;
    const patLoop = (async () => {
      while (!stop || patSeen.filter((s) => s.startedAt > answered).length < 3) {
        const startedAt = Date.now();
        patSeen.push({ startedAt, status: (await send(c.env, "/api/v4/user", { headers: { "PRIVATE-TOKEN": pat } })).status });
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    let answered = Infinity;
    const { seen, answeredAt } = await raceAgainst(c.env, token, async () => {
      expect(await blockUser(c.env, { id: admin.id, ip: null }, user.id)).toBe(true);
      answered = Date.now();
    });
    stop = true;
    await patLoop;
    for (const list of [seen, patSeen]) {
      expect(list.some((s) => s.startedAt < answeredAt && s.status === 200)).toBe(true);
      const after = list.filter((s) => s.startedAt > answeredAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((s) => s.status === 200)).toEqual([]);
    }
  });

  it.concurrent("PAT deletion (DELETE /personal_access_tokens/:id) with requests running concurrently: none begun after the answer succeeds", async () => {
    const user = await makeUser();
    const pat = await makePat(user.id);
    const c = cacheEnv();
    const { seen, answeredAt } = await raceAgainst(c.env, pat, async () => {
      const res = await send(c.env, "/api/v4/personal_access_tokens/self", { method: "DELETE", headers: { "PRIVATE-TOKEN": pat } });
      expect(res.status).toBe(204);
    });
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the answer").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
  });

  it.concurrent("RFC 9700 §4.14 refresh-token reuse at the shipped default L: the family's access token is refused the moment the 400 arrives", async () => {
    const { app: client, tokens } = await pkceTokens();
    const c = cacheEnv();
    const rotated = await send(c.env, "/oauth/token", {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: client.uid, refresh_token: tokens.refresh_token }),
    });
    expect(rotated.status).toBe(200);
    const fresh = JSON.parse(rotated.text) as { access_token: string; refresh_token: string };
    // The new access token is in use (the loops warm the cache with it), so the old refresh token
    // is no longer a client's retry within the grace window: presenting it is a replay.
    const { seen, answeredAt } = await raceAgainst(c.env, fresh.access_token, async () => {
      const replay = await send(c.env, "/oauth/token", {
        method: "POST",
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: client.uid, refresh_token: tokens.refresh_token }),
      });
      expect(replay.status).toBe(400);
      expect(JSON.parse(replay.text).error).toBe("invalid_grant");
    });
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the 400").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
  });

  it.concurrent("RFC 6749 §4.1.2 authorization code replay at the shipped default L: the access token issued from the code is refused the moment the 400 arrives", async () => {
    const { app: client } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: client.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const exchange = () =>
      send(c.env, "/oauth/token", {
        method: "POST",
        body: new URLSearchParams({ grant_type: "authorization_code", client_id: client.uid, code, redirect_uri: REDIRECT, code_verifier: verifier }),
      });
    const c = cacheEnv();
    const first = await exchange();
    expect(first.status).toBe(200);
    const { access_token } = JSON.parse(first.text) as { access_token: string };
    const { seen, answeredAt } = await raceAgainst(c.env, access_token, async () => {
      const replay = await exchange();
      expect(replay.status).toBe(400);
      expect(JSON.parse(replay.text).error).toBe("invalid_grant");
    });
    const after = seen.filter((s) => s.startedAt > answeredAt);
    expect(after.length, "requests begun after the 400").toBeGreaterThan(0);
    expect(after.filter((s) => s.status === 200)).toEqual([]);
  });
});
