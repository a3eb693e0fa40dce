import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseRefreshToken } from "../../src/credentials/oauth-token-format";
import { signedInUser } from "../helpers/browser";
import { VALIDATION_CACHE_SETTINGS, callWithValidationCache } from "../helpers/validation-cache";
import { REDIRECT, call, getCode, makeApp, pkce, pkceTokens, refresh, tokenRequest, type Tokens } from "./helpers";

const info = (token: string) => call("/oauth/token/info", { token });

async function rewind(refreshToken: string, patch: (s: FamilyState) => void) {
  await runInDurableObject(familyStub(env, parseRefreshToken(refreshToken)!.fid), async (_o: TokenFamily, state) => {
    const s = state.storage.kv.get<FamilyState>("state")!;
    patch(s);
    state.storage.kv.put("state", s);
  });
}

describe("POST /oauth/token grant_type=refresh_token (spec; DESIGN, Refresh tokens)", () => {
  it("spec transition: refreshing returns a new pair and invalidates both old tokens, even after the access token expired", async () => {
    const { app, tokens } = await pkceTokens();
    await rewind(tokens.refresh_token, (s) => {
      s.access!.expiresAt = Date.now() - 1000;
    });
    expect((await info(tokens.access_token)).status).toBe(401);
    const res = await refresh(app, tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Tokens;
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.token_type).toBe("bearer");
    expect(next.expires_in).toBe(7200);
    expect(typeof next.created_at).toBe("number");
    expect((await info(next.access_token)).status).toBe(200);
    expect((await info(tokens.access_token)).status).toBe(401);
  });

  it("PKCE row: client_id, refresh_token, redirect_uri, code_verifier; a matching redirect_uri and verifier are accepted", async () => {
    const { app, tokens, verifier } = await pkceTokens();
    const res = await refresh(app, tokens.refresh_token, { redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status).toBe(200);
  });

  it("when redirect_uri or code_verifier is sent with a refresh it must match (invalid_grant, family intact)", async () => {
    const { app, tokens } = await pkceTokens();
    const bad1 = await refresh(app, tokens.refresh_token, { redirect_uri: "https://client.example/else" });
    expect(bad1.status).toBe(400);
    expect(((await bad1.json()) as { error: string }).error).toBe("invalid_grant");
    const bad2 = await refresh(app, tokens.refresh_token, { code_verifier: (await pkce()).verifier });
    expect(bad2.status).toBe(400);
    expect((await info(tokens.access_token)).status).toBe(200);
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
  });

  it("no-PKCE row: a confidential client must send its secret (401 invalid_client without, 200 with)", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const t = (await (
      await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })
    ).json()) as Tokens;
    const without = await refresh(app, t.refresh_token);
    expect(without.status).toBe(401);
    expect(((await without.json()) as { error: string }).error).toBe("invalid_client");
    const wrong = await refresh(app, t.refresh_token, { client_secret: "gloas-wrong" });
    expect(wrong.status).toBe(401);
    const ok = await refresh(app, t.refresh_token, { client_secret: secret, redirect_uri: REDIRECT });
    expect(ok.status).toBe(200);
  });

  it("DESIGN: a refresh token of another client is invalid_grant; missing refresh_token is invalid_request", async () => {
    const { tokens } = await pkceTokens();
    const other = await makeApp({ confidential: false });
    const res = await refresh(other.app, tokens.refresh_token);
    expect(res.status).toBe(400);
    const missing = await tokenRequest({ grant_type: "refresh_token", client_id: other.app.uid });
    expect(await missing.json()).toMatchObject({ error: "invalid_request", error_description: "Missing required parameter: refresh_token." });
    const garbage = await refresh(other.app, "glort-nonsense");
    expect(garbage.status).toBe(400);
  });

  it("DESIGN Refresh tokens 3: the just-replaced token within the grace window, before the new pair was used, returns that same pair", async () => {
    const { app, tokens } = await pkceTokens();
    const first = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    const again = await refresh(app, tokens.refresh_token);
    expect(again.status).toBe(200);
    const second = (await again.json()) as Tokens;
    expect(second.access_token).toBe(first.access_token);
    expect(second.refresh_token).toBe(first.refresh_token);
    // The family is intact: the pair works.
    expect((await info(first.access_token)).status).toBe(200);
  });

  it("DESIGN Refresh tokens 3: the grace pair is kept sealed in durable storage (no plaintext), so a restarted object still answers the retry", async () => {
    const { app, tokens } = await pkceTokens();
    const first = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    const stub = familyStub(env, parseRefreshToken(tokens.refresh_token)!.fid);
    const seen = new WeakSet<TokenFamily>();
    await runInDurableObject(stub, async (o: TokenFamily, state) => {
      seen.add(o);
      const s = state.storage.kv.get<FamilyState>("state")!;
      expect(s.grace?.sealed).toBeTypeOf("string");
      expect(s.grace!.sealed).not.toContain(first.access_token);
    });
    // Restart the object: its instance is torn down and only durable storage survives.
    await evictDurableObject(stub);
    const second = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    expect(second.refresh_token).toBe(first.refresh_token);
    expect(second.access_token).toBe(first.access_token);
    // The retry was answered by a new instance, not the one that sealed the pair.
    await runInDurableObject(stub, async (o: TokenFamily) => expect(seen.has(o)).toBe(false));
  });

  it("DESIGN Refresh tokens 1-3: 20 concurrent refreshes of one token yield exactly one distinct pair", async () => {
    const { app, tokens } = await pkceTokens();
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(app, tokens.refresh_token)));
    const bodies = (await Promise.all(results.map((r) => r.json()))) as Tokens[];
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(bodies.map((b) => b.refresh_token)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.access_token)).size).toBe(1);
    expect((await info(bodies[0].access_token)).status).toBe(200);
  });

  it("Audit token_refreshed: queued by the family with the rotation, flushed to D1 by its alarm", async () => {
    const { app, tokens } = await pkceTokens();
    await refresh(app, tokens.refresh_token);
    const fid = parseRefreshToken(tokens.refresh_token)!.fid;
    const rows = () => getDb(env.DB).select().from(auditEvents).where(and(eq(auditEvents.action, "token_refreshed"), eq(auditEvents.entityId, fid)));
    expect(await runDurableObjectAlarm(familyStub(env, fid))).toBe(true);
    expect(await rows()).toHaveLength(1);
    await runInDurableObject(familyStub(env, fid), async (_o: TokenFamily, state) => {
      expect([...state.storage.kv.list({ prefix: "audit:" })]).toHaveLength(0);
    });
  });
});

/**
 * A replay takes access away like /oauth/revoke: with the validation cache on, the family's access
 * token, remembered by the isolate, is refused from the moment the 400 arrives (DESIGN,
 * "Validation cache"); and with it off as before.
 */
describe.each(VALIDATION_CACHE_SETTINGS)("DESIGN Refresh tokens 4, reuse revokes the family at once ($setting)", ({ seconds }) => {
  const call = callWithValidationCache(seconds);
  // The API resolves the token through the validation cache (as /oauth/token/info does: one front door).
  const info = (token: string) => call("/api/v4/user", { token });
  const refresh = (app: { uid: string }, refreshToken: string) => tokenRequest({ grant_type: "refresh_token", client_id: app.uid, refresh_token: refreshToken }, { fetcher: call });

  it("DESIGN Refresh tokens 4: the replaced token after the new pair was used is reuse: the family is revoked, audit refresh_reuse", async () => {
    const { app, tokens } = await pkceTokens();
    const first = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    expect((await info(first.access_token)).status).toBe(200); // the new pair is used
    const replay = await refresh(app, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await info(first.access_token)).status).toBe(401);
    expect((await refresh(app, first.refresh_token)).status).toBe(400);
    const fid = parseRefreshToken(tokens.refresh_token)!.fid;
    const audits = await getDb(env.DB).select().from(auditEvents).where(and(eq(auditEvents.action, "refresh_reuse"), eq(auditEvents.entityId, fid)));
    expect(audits).toHaveLength(1);
  });

  it("DESIGN Refresh tokens 4: the replaced token after the grace window is reuse", async () => {
    const { app, tokens } = await pkceTokens();
    const first = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    await rewind(tokens.refresh_token, (s) => {
      s.grace!.until = Date.now() - 1;
    });
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
    expect((await refresh(app, first.refresh_token)).status).toBe(400);
  });

  it("DESIGN Refresh tokens 4: an older superseded token (two rotations back) is reuse", async () => {
    const { app, tokens } = await pkceTokens();
    const first = (await (await refresh(app, tokens.refresh_token)).json()) as Tokens;
    const second = (await (await refresh(app, first.refresh_token)).json()) as Tokens;
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
    expect((await info(second.access_token)).status).toBe(401);
  });
});
