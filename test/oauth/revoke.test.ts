import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { call, makeApp, makeUser, pkceTokens, refresh, TEST_PASSWORD, tokenRequest } from "./helpers";

const revoke = (fields: Record<string, string>, basic?: [string, string]) => {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (basic) headers.Authorization = `Basic ${btoa(`${basic[0]}:${basic[1]}`)}`;
  return call("/oauth/revoke", { method: "POST", body: new URLSearchParams(fields), headers });
};

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
