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
 * DESIGN, "Validation cache (bounded staleness)", applied to the refresh grant's client (RFC 6749
 * §2.3.1, client_id and client_secret in the form body): a confidential client's verified secret is
 * remembered for at most L, keyed by its hash, so its rotations skip D1; renewing the secret or
 * deleting the application answers only once no isolate can still remember the old secret, so
 * after it answers no refresh with it succeeds. The test pool runs with the cache off; these
 * tests turn it on.
 */
const address = () => `10.78.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

async function refreshWithSecretInBody(e: Bindings, ip: string, refreshToken: string, clientId: string, secret: string) {
  const req = new Request("https://auth.example.test/oauth/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, client_secret: secret }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip },
  });
  const ctx = createExecutionContext();
  const res = await app.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { refresh_token?: string; error?: string };
  return { status: res.status, refreshToken: body.refresh_token ?? null, error: body.error ?? null };
}

describe("the refresh grant's confidential client through the validation cache", () => {
  it("RFC 6749 §6 with §2.3.1 body credentials: a repeated rotation by the same client within L makes no D1 round trip", async () => {
    forgetValidations();
    const { app: client, secret, tokens } = await pkceTokens({ confidential: true });
    const counted = countingEnv();
    const e = withVars(counted.env, { VALIDATION_CACHE_SECONDS: "5" });
    const ip = address();
    // The first rotation reads the client from D1 (and this env's first-request checks); the
    // next ones within L read nothing from D1: the client is remembered, the family holds the user.
    const first = await refreshWithSecretInBody(e, ip, tokens.refresh_token, client.uid, secret);
    expect(first.status).toBe(200);
    const second = await refreshWithSecretInBody(e, ip, first.refreshToken!, client.uid, secret);
    expect(second.status).toBe(200);
    const afterSecond = counted.counts.roundTrips;
    const third = await refreshWithSecretInBody(e, ip, second.refreshToken!, client.uid, secret);
    expect(third.status).toBe(200);
    expect(counted.counts.roundTrips).toBe(afterSecond);
    // A wrong secret is never answered from memory: it is refused (and counted) every time.
    const wrong = await refreshWithSecretInBody(e, ip, third.refreshToken!, client.uid, `${secret}x`);
    expect([wrong.status, wrong.error]).toEqual([401, "invalid_client"]);
    expect(counted.counts.roundTrips).toBeGreaterThan(afterSecond);
  });

  it.each([
    ["renewing the secret", (e: Bindings, row: Parameters<typeof renewApplicationSecret>[2], by: number) => renewApplicationSecret(e, { id: by, ip: null }, row)],
    ["deleting the application", (e: Bindings, row: Parameters<typeof deleteApplication>[2], by: number) => deleteApplication(e, { id: by, ip: null }, row)],
  ])("after %s answers, no refresh with the old secret succeeds (rotations racing the change)", async (_name, change) => {
    forgetValidations();
    const { app: client, secret, tokens, user } = await pkceTokens({ confidential: true });
    const e = withVars(env as Bindings, { VALIDATION_CACHE_SECONDS: "1" });
    const ip = address();
    // Remembered before the change begins.
    let current = tokens.refresh_token;
    const primed = await refreshWithSecretInBody(e, ip, current, client.uid, secret);
    expect(primed.status).toBe(200);
    current = primed.refreshToken!;
    let answered = 0;
    const started: { at: number; ok: boolean }[] = [];
    const racing = (async () => {
      while (answered === 0) {
        const at = Date.now();
        const r = await refreshWithSecretInBody(e, ip, current, client.uid, secret);
        if (r.status === 200) current = r.refreshToken!;
        started.push({ at, ok: r.status === 200 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await change(e, client, user.id);
    answered = Date.now();
    await racing;
    const after = await refreshWithSecretInBody(e, ip, current, client.uid, secret);
    expect(after.status).not.toBe(200);
    expect(started.filter((s) => s.at >= answered && s.ok)).toEqual([]);
    // The race ran: rotations were answered while the change waited out the bound.
    expect(started.some((s) => s.ok)).toBe(true);
  });
});
