import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { forgetValidations } from "../../src/credentials/validation-cache";
import type { Bindings } from "../../src/env";
import { deleteApplication, renewApplicationSecret } from "../../src/services/applications";
import { countingEnv } from "../helpers/d1-counting";
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
    expect(after.status).toBe(401);
    expect(started.filter((s) => s.at >= answered && s.ok)).toEqual([]);
    // The race ran: requests were answered from memory while the change waited out the bound.
    expect(started.some((s) => s.ok)).toBe(true);
  });
});
