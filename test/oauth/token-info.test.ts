import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { call, pkceTokens } from "./helpers";

const INVALID = { error: "invalid_token", error_description: "The access token is invalid" };

describe("GET /oauth/token/info (spec, Token information)", () => {
  it("oauth-token-info-aliases / spec: Bearer header gives every field, with the deprecated aliases scopes and expires_in_seconds (served at every version: no removal milestone)", async () => {
    const { app, user, tokens } = await pkceTokens({ scopes: ["api", "read_user"] });
    const res = await call("/oauth/token/info", { token: tokens.access_token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.resource_owner_id).toBe(user.id);
    expect(body.scope).toEqual(["api", "read_user"]);
    expect(body.scopes).toEqual(body.scope);
    expect(body.expires_in).toBeGreaterThan(7190);
    expect(body.expires_in_seconds).toBe(body.expires_in);
    expect(body.application).toEqual({ uid: app.uid });
    expect(body.created_at).toBe(tokens.created_at);
  });

  it("spec: the access_token query parameter works too", async () => {
    const { tokens } = await pkceTokens();
    const res = await call(`/oauth/token/info?access_token=${encodeURIComponent(tokens.access_token)}`);
    expect(res.status).toBe(200);
  });

  it("DESIGN: missing, malformed, forged, refresh-instead-of-access and expired tokens are 401 invalid_token (revoked: revoke.test.ts)", async () => {
    const { tokens } = await pkceTokens();
    const forged = tokens.access_token.slice(0, -4) + "AAAA";
    for (const token of [undefined, "nonsense", forged, tokens.refresh_token]) {
      const res = await call("/oauth/token/info", { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(INVALID);
      expect(res.headers.get("www-authenticate")).toContain("invalid_token");
    }
    await runInDurableObject(familyStub(env, parseAccessToken(tokens.access_token)!.fid), async (_o: TokenFamily, state) => {
      const s = state.storage.kv.get<FamilyState>("state")!;
      s.access!.expiresAt = Date.now() - 1;
      state.storage.kv.put("state", s);
    });
    const expired = await call("/oauth/token/info", { token: tokens.access_token });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual(INVALID);
  });
});
