import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callFrom } from "../helpers/fixtures";
import { makeApp, makeUser, pkceTokens, TEST_PASSWORD, tokenRequest, unique } from "./helpers";

const from = callFrom;

async function expectThrottled(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  for (const h of ["ratelimit-limit", "ratelimit-observed", "ratelimit-remaining", "ratelimit-reset", "ratelimit-resettime"]) expect(res.headers.get(h)).not.toBeNull();
  expect(await res.json()).toMatchObject({ error: "too_many_requests" });
}

describe("throttle of failed authentication at the OAuth endpoints per client address (DESIGN Hardening)", () => {
  it("password grant: after 30 failures from one address, 429 in the OAuth error shape, even for valid credentials; other addresses unaffected", async () => {
    const user = await makeUser();
    const attacker = from("203.0.113.60");
    for (let i = 0; i < 30; i++) {
      const res = await tokenRequest({ grant_type: "password", username: unique("spray"), password: "Spring2026!" }, { fetcher: attacker });
      expect(res.status).toBe(400);
    }
    await expectThrottled(await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, { fetcher: attacker }));
    const elsewhere = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, { fetcher: from("198.51.100.60") });
    expect(elsewhere.status).toBe(200);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'throttled' AND entity_id = ?").bind("203.0.113.60").first<{ n: number }>();
    expect(audit!.n).toBe(1);
  });

  it("client secrets: wrong secrets at /oauth/token, /oauth/revoke and /oauth/introspect share one count; then 429; a valid secret still works", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const attacker = from("203.0.113.61");
    const paths = ["/oauth/token", "/oauth/revoke", "/oauth/introspect"];
    for (let i = 0; i < 30; i++) {
      const body = new URLSearchParams({ client_id: app.uid, client_secret: `gloas-wrong-${i}`, token: tokens.access_token, grant_type: "refresh_token", refresh_token: tokens.refresh_token });
      const res = await attacker(paths[i % 3], { method: "POST", body });
      expect(res.status).toBe(401);
    }
    const again = await attacker("/oauth/introspect", { method: "POST", body: new URLSearchParams({ client_id: app.uid, client_secret: "gloas-wrong", token: tokens.access_token }) });
    await expectThrottled(again);
    // Client secrets carry 256 bits: the right one is never checked against the throttle first.
    const ok = await attacker("/oauth/introspect", { method: "POST", body: new URLSearchParams({ client_id: app.uid, client_secret: secret, token: tokens.access_token }) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ active: true });
  });

  it("a public client naming itself (no secret) is not counted", async () => {
    const { app } = await makeApp({ confidential: false });
    const client = from("203.0.113.62");
    for (let i = 0; i < 35; i++) {
      const res = await client("/oauth/revoke", { method: "POST", body: new URLSearchParams({ client_id: app.uid, token: `nonsense-${i}` }) });
      expect(res.status).toBe(200);
    }
  });
});
