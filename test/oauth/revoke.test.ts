import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { call, makeApp, makeUser, pkceTokens, refresh, TEST_PASSWORD, tokenRequest } from "./helpers";
import { VALIDATION_CACHE_SETTINGS, callWithValidationCache } from "../helpers/validation-cache";

const revokeThrough = (fetcher: typeof call) => (fields: Record<string, string>, basic?: [string, string]) => {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (basic) headers.Authorization = `Basic ${btoa(`${basic[0]}:${basic[1]}`)}`;
  return fetcher("/oauth/revoke", { method: "POST", body: new URLSearchParams(fields), headers });
};
const revoke = revokeThrough(call);

describe("POST /oauth/revoke (spec; RFC 7009)", () => {
  it("spec: client_id, client_secret and token revoke it: status 200 with an empty JSON object; a wrong secret is 401", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const wrong = await revoke({ client_id: app.uid, client_secret: "gloas-wrong", token: tokens.access_token });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toBe("invalid_client");
    expect((await call("/oauth/token/info", { token: tokens.access_token })).status).toBe(200);
    const res = await revoke({ client_id: app.uid, client_secret: secret, token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect((await call("/oauth/token/info", { token: tokens.access_token })).status).toBe(401);
  });

  it("RFC 7009 §2.2: an unknown or malformed token gets 200 {}", async () => {
    const { app } = await makeApp({ confidential: false });
    for (const token of ["nonsense", "gloat-1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const res = await revoke({ client_id: app.uid, token });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    }
  });

  it("DESIGN: a token of another application is 403 unauthorized_client and stays valid", async () => {
    const { tokens } = await pkceTokens();
    const other = await makeApp({ confidential: false });
    const res = await revoke({ client_id: other.app.uid, token: tokens.access_token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe("unauthorized_client");
    expect((await call("/oauth/token/info", { token: tokens.access_token })).status).toBe(200);
  });

  it("DESIGN errors: missing token is invalid_request; unknown client is 401 invalid_client", async () => {
    const { app } = await makeApp({ confidential: false });
    const missing = await revoke({ client_id: app.uid });
    expect(await missing.json()).toMatchObject({ error: "invalid_request", error_description: "Missing required parameter: token." });
    const unknown = await revoke({ client_id: "nope", token: "x" });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toMatch(/^Basic/);
  });

  it("Doorkeeper: a password-grant token without application may be revoked by an authenticated client", async () => {
    const user = await makeUser();
    const t = (await (await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD })).json()) as { access_token: string };
    const { app } = await makeApp({ confidential: false });
    expect((await revoke({ client_id: app.uid, token: t.access_token })).status).toBe(200);
    expect((await call("/api/v4/user", { token: t.access_token })).status).toBe(401);
  });
});

/**
 * Revocation takes access away at once, with the validation cache on (the token remembered by the
 * isolate; /oauth/revoke answers only after the bound, DESIGN "Validation cache") and off.
 */
describe.each(VALIDATION_CACHE_SETTINGS)("RFC 7009 §2.1 / DESIGN Revocation: revoking any token ever issued in the grant revokes the whole grant at once ($setting)", ({ seconds }) => {
  const call = callWithValidationCache(seconds);
  const revoke = revokeThrough(call);
  const refresh = (app: { uid: string }, refreshToken: string) => tokenRequest({ grant_type: "refresh_token", client_id: app.uid, refresh_token: refreshToken }, { fetcher: call });
  type Pair = { access_token: string; refresh_token: string };
  const rotate = async (app: { uid: string }, refreshToken: string) => {
    const res = await refresh(app, refreshToken);
    expect(res.status).toBe(200);
    return (await res.json()) as Pair;
  };
  const grantIsDead = async (app: { uid: string }, pair: Pair) => {
    expect((await call("/oauth/token/info", { token: pair.access_token })).status).toBe(401);
    expect((await call("/api/v4/user", { token: pair.access_token })).status).toBe(401);
    expect((await refresh(app, pair.refresh_token)).status).toBe(400);
  };

  it("RFC 7009 §2.1: revoking the access token revokes the family at once, everywhere", async () => {
    const { app, tokens } = await pkceTokens();
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    const res = await revoke({ client_id: app.uid, token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect((await call("/oauth/token/info", { token: tokens.access_token })).status).toBe(401);
    const api = await call("/api/v4/user", { token: tokens.access_token });
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: string }).error).toBe("invalid_token");
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
    const fid = parseAccessToken(tokens.access_token)!.fid;
    const audits = await getDb(env.DB).select().from(auditEvents).where(and(eq(auditEvents.action, "token_revoked"), eq(auditEvents.entityId, fid)));
    expect(audits).toHaveLength(1);
  });

  it("DESIGN: revoking the refresh token revokes the access token too (the family)", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const res = await revoke({ token: tokens.refresh_token }, [app.uid, secret]);
    expect(res.status).toBe(200);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
  });

  it("revoking a superseded refresh token (the one a client still holds after a rotation) kills the new pair", async () => {
    const { app, tokens } = await pkceTokens();
    const next = await rotate(app, tokens.refresh_token);
    // The new pair has been used, so the old refresh token is past its grace window.
    expect((await call("/api/v4/user", { token: next.access_token })).status).toBe(200);
    const res = await revoke({ client_id: app.uid, token: tokens.refresh_token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    await grantIsDead(app, next);
  });

  it("revoking a superseded refresh token inside the grace window kills the new pair too", async () => {
    const { app, tokens } = await pkceTokens();
    const next = await rotate(app, tokens.refresh_token);
    expect((await revoke({ client_id: app.uid, token: tokens.refresh_token })).status).toBe(200);
    await grantIsDead(app, next);
    // Nor may the grace retry hand the pair out again.
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
  });

  it("revoking a superseded access token kills the grant, two rotations later", async () => {
    const { app, tokens } = await pkceTokens();
    const second = await rotate(app, tokens.refresh_token);
    const third = await rotate(app, second.refresh_token);
    expect((await revoke({ client_id: app.uid, token: tokens.access_token })).status).toBe(200);
    await grantIsDead(app, third);
  });

  it("a superseded token of another application is still 403 unauthorized_client and the grant lives", async () => {
    const { app, tokens } = await pkceTokens();
    const next = await rotate(app, tokens.refresh_token);
    const other = await makeApp({ confidential: false });
    expect((await revoke({ client_id: other.app.uid, token: tokens.refresh_token })).status).toBe(403);
    expect((await call("/oauth/token/info", { token: next.access_token })).status).toBe(200);
  });

  it("a revoke racing a refresh of the same token always leaves the grant dead (bounded loop of 12 races)", async () => {
    for (let i = 0; i < 12; i++) {
      const { app, tokens } = await pkceTokens();
      const [refreshed, revoked] = await Promise.all([refresh(app, tokens.refresh_token), revoke({ client_id: app.uid, token: tokens.refresh_token })]);
      expect(revoked.status).toBe(200);
      if (refreshed.status === 200) await grantIsDead(app, (await refreshed.json()) as Pair);
      else expect(refreshed.status).toBe(400);
      await grantIsDead(app, tokens);
    }
  });
});
