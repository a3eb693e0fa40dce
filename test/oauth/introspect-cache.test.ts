import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { forgetValidations } from "../../src/credentials/validation-cache";
import type { Bindings } from "../../src/env";
import { deleteApplication, renewApplicationSecret } from "../../src/services/applications";
import { countingEnv } from "../helpers/d1-counting";
import { countingObjectCalls } from "../helpers/validation-cache";
import { pkceTokens } from "./helpers";

/**
 * DESIGN, "Validation cache (bounded staleness)", applied to introspection's client (RFC 7662 §2.1:
 * the caller authenticates): an authenticated client is remembered for at most L, so repeated
 * introspection skips D1; renewing the secret or deleting the application answers only once no
 * isolate can still remember the old secret, so after it answers no introspection with it succeeds.
 * The test pool runs with the cache off; these tests turn it on.
 */
const address = () => `10.77.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

async function introspect(e: Bindings, ip: string, token: string, clientId: string, secret: string): Promise<{ status: number; active: boolean }> {
  const req = new Request("https://auth.example.test/oauth/introspect", {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, "CF-Connecting-IP": ip },
  });
  const ctx = createExecutionContext();
  const res = await app.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { active?: boolean };
  return { status: res.status, active: body.active === true };
}

describe("introspection's client through the validation cache", () => {
  it("a repeated introspection by the same authenticated client within L makes no D1 round trip (client and user remembered)", async () => {
    forgetValidations();
    const { app: client, secret, tokens } = await pkceTokens({ confidential: true });
    const counted = countingEnv();
    const e = withVars(counted.env, { VALIDATION_CACHE_SECONDS: "5" });
    const ip = address();
    // The first call pays the client's and the user's reads (and this env's first-request checks);
    // later ones within L read neither.
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    const afterFirst = counted.counts.roundTrips;
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    const afterSecond = counted.counts.roundTrips;
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    expect(counted.counts.roundTrips).toBe(afterSecond);
    expect(afterSecond - afterFirst).toBe(0);
    // A wrong secret is never answered from memory: it is refused (and counted) every time.
    expect((await introspect(e, ip, tokens.access_token, client.uid, `${secret}x`)).status).toBe(401);
  });

  it.each([
    ["renewing the secret", (e: Bindings, row: Parameters<typeof renewApplicationSecret>[2], by: number) => renewApplicationSecret(e, { id: by, ip: null }, row)],
    ["deleting the application", (e: Bindings, row: Parameters<typeof deleteApplication>[2], by: number) => deleteApplication(e, { id: by, ip: null }, row)],
  ])("after %s answers, no introspection with the old secret succeeds (requests racing the change)", async (_name, change) => {
    forgetValidations();
    const { app: client, secret, tokens, user } = await pkceTokens({ confidential: true });
    const e = withVars(env as Bindings, { VALIDATION_CACHE_SECONDS: "1" });
    const ip = address();
    // Remembered before the change begins.
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    let answered = 0;
    const started: { at: number; ok: boolean }[] = [];
    const racing = (async () => {
      while (answered === 0) {
        const at = Date.now();
        const r = await introspect(e, ip, tokens.access_token, client.uid, secret);
        started.push({ at, ok: r.status === 200 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await change(e, client, user.id);
    answered = Date.now();
    await racing;
    const after = await introspect(e, ip, tokens.access_token, client.uid, secret);
    // Refused: 401, or 429 once the racing requests refused since the change began have reached
    // this address's failed-authentication throttle (each counts, src/throttle).
    expect([401, 429]).toContain(after.status);
    expect(started.filter((s) => !s.ok).length > 0 || after.status === 401).toBe(true);
    expect(started.filter((s) => s.at >= answered && s.ok)).toEqual([]);
    // The race ran: requests were answered from memory while the change waited out the bound.
    expect(started.some((s) => s.ok)).toBe(true);
  });
});

/**
 * DESIGN, "Validation cache (bounded staleness)", applied to the token introspection asks about: an
 * access token is checked the way every API request's token is (the front door's OAuth kind), so a
 * positive answer is remembered for at most L and every change that takes access away waits it out.
 */
describe("RFC 7662 §2.2 through the validation cache: an introspected access token is checked as the API checks it", () => {
  it("a repeated introspection of the same access token within L asks its family once", async () => {
    forgetValidations();
    const { app: client, secret, tokens } = await pkceTokens({ confidential: true });
    const family = countingObjectCalls(env.TOKEN_FAMILY);
    const e = withVars({ ...(env as Bindings), TOKEN_FAMILY: family.ns } as Bindings, { VALIDATION_CACHE_SECONDS: "5" });
    const ip = address();
    // The first asks the family (and hands it the user row read from D1, as the API's first request does).
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    const first = family.gets();
    expect(first).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    expect(family.gets()).toBe(first);
    // The API's own requests with the token hit the same remembered answer.
    const ctx = createExecutionContext();
    const api = await app.fetch(new Request("https://auth.example.test/api/v4/user", { headers: { Authorization: `Bearer ${tokens.access_token}`, "CF-Connecting-IP": ip } }), e, ctx);
    await waitOnExecutionContext(ctx);
    expect(api.status).toBe(200);
    expect(family.gets()).toBe(first);
    // A refresh token is never vouched for by a request: it asks its family every time.
    for (let i = 0; i < 2; i++) expect(await introspect(e, ip, tokens.refresh_token, client.uid, secret)).toEqual({ status: 200, active: true });
    expect(family.gets()).toBe(first + 2);
  });

  it("RFC 7009 /oauth/revoke with introspections of the token running concurrently: none begun after the answer reports it active", async () => {
    forgetValidations();
    const { app: client, secret, tokens } = await pkceTokens({ confidential: true });
    const e = withVars(env as Bindings, { VALIDATION_CACHE_SECONDS: "1" });
    const ip = address();
    expect(await introspect(e, ip, tokens.access_token, client.uid, secret)).toEqual({ status: 200, active: true });
    let answeredAt: number | null = null;
    const seen: { at: number; active: boolean }[] = [];
    const loop = async () => {
      let afterAnswer = 0;
      while (afterAnswer < 3) {
        const at = Date.now();
        if (answeredAt !== null && at > answeredAt) afterAnswer++;
        const r = await introspect(e, ip, tokens.access_token, client.uid, secret);
        expect(r.status).toBe(200);
        seen.push({ at, active: r.active });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const loops = [loop(), loop(), loop()];
    while (seen.filter((s) => s.active).length < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    const revoke = new Request("https://auth.example.test/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: tokens.access_token }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.uid}:${secret}`)}`, "CF-Connecting-IP": ip },
    });
    const ctx = createExecutionContext();
    const revoked = await app.fetch(revoke, e, ctx);
    await waitOnExecutionContext(ctx);
    expect(revoked.status).toBe(200);
    answeredAt = Date.now();
    await Promise.all(loops);
    const after = seen.filter((s) => s.at > answeredAt!);
    expect(after.length, "introspections begun after the answer").toBeGreaterThan(0);
    expect(after.filter((s) => s.active)).toEqual([]);
    // The race ran: the token was reported active before the answer.
    expect(seen.some((s) => s.active)).toBe(true);
  });
});
