import { env, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseCode } from "../../src/credentials/oauth-token-format";
import { signedInUser } from "../helpers/browser";
import { VALIDATION_CACHE_SETTINGS, callWithValidationCache } from "../helpers/validation-cache";
import { authorizationSubject, recordChange } from "../../src/services/changes/runner";
import { REDIRECT, call, getCode, makeApp, pkce, tokenRequest, type Tokens } from "./helpers";

async function expectError(res: Response, status: number, error: string, description?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe("string");
  if (description) expect(body.error_description).toBe(description);
  return body;
}

describe("POST /oauth/token grant_type=authorization_code (spec, POST /oauth/token)", () => {
  it("PKCE row: client_id, code, redirect_uri, code_verifier return the token response", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256", scope: "api" });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Tokens;
    expect(body.token_type).toBe("bearer");
    expect(body.expires_in).toBe(7200);
    expect(typeof body.refresh_token).toBe("string");
    expect(Math.abs(body.created_at - Date.now() / 1000)).toBeLessThan(5);
    expect(body.scope).toBe("api");
    const info = await call("/oauth/token/info", { token: body.access_token });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { resource_owner_id: number }).resource_owner_id).toBe(user.id);
  });

  it("no-PKCE row: client_id, client_secret, code, redirect_uri (secret in the body)", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Tokens;
    expect(body.scope).toBe("api read_user read_repository");
  });

  it("RFC 6749 §2.3.1: the client may authenticate with HTTP Basic instead", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const res = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT }, { basic: [app.uid, secret] });
    expect(res.status).toBe(200);
  });

  it("DESIGN errors: a missing parameter is invalid_request 'Missing required parameter: X.'", async () => {
    await expectError(await tokenRequest({ client_id: "x" }), 400, "invalid_request", "Missing required parameter: grant_type.");
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: "x", redirect_uri: REDIRECT }), 400, "invalid_request", "Missing required parameter: code.");
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: "x", code: "c" }), 400, "invalid_request", "Missing required parameter: redirect_uri.");
  });

  it("DESIGN errors: an unknown grant_type is unsupported_grant_type", async () => {
    await expectError(await tokenRequest({ grant_type: "urn:ietf:params:oauth:grant-type:saml2-bearer" }), 400, "unsupported_grant_type");
    await expectError(await tokenRequest({ grant_type: "__proto__" }), 400, "unsupported_grant_type");
  });

  it("RFC 6749 §3.2: a repeated parameter is invalid_request", async () => {
    const res = await call("/oauth/token", {
      method: "POST",
      body: "grant_type=password&grant_type=password",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    await expectError(res, 400, "invalid_request");
  });

  it("DESIGN errors: unknown client, wrong secret or a confidential client without secret is 401 invalid_client with WWW-Authenticate", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const cases: Array<Record<string, string>> = [
      { client_id: "nope", client_secret: secret },
      { client_id: app.uid, client_secret: "gloas-wrong" },
      { client_id: app.uid },
    ];
    for (const c of cases) {
      const res = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, ...c });
      await expectError(res, 401, "invalid_client");
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    // The code is still good: failed client authentication does not consume it.
    const ok = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.uid, client_secret: secret });
    expect(ok.status).toBe(200);
  });

  it("spec Errors: a redirect_uri that differs from the authorization request is invalid_grant", async () => {
    const { app, secret } = await makeApp({ redirectUri: `${REDIRECT}\nhttps://client.example/other` });
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: "https://client.example/other" });
    await expectError(res, 400, "invalid_grant");
  });

  it("DESIGN PKCE: a wrong verifier, a missing verifier, and a verifier without challenge are invalid_grant", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const wrong = (await pkce()).verifier;
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: wrong }), 400, "invalid_grant");
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT }), 400, "invalid_grant");
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: "short" }), 400, "invalid_grant");
    const plain = await getCode(browser, { client_id: app.uid });
    await expectError(
      await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code: plain, redirect_uri: REDIRECT, code_verifier: wrong }),
      400,
      "invalid_grant",
    );
  });

  it("DESIGN: a code issued to another client is invalid_grant", async () => {
    const a = await makeApp();
    const b = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: a.app.uid });
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: b.app.uid, client_secret: b.secret, code, redirect_uri: REDIRECT }), 400, "invalid_grant");
  });

  it("DESIGN: unknown and malformed codes are invalid_grant, never a 500", async () => {
    const { app, secret } = await makeApp();
    for (const code of ["garbage", "1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x".repeat(5000)]) {
      await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT }), 400, "invalid_grant");
    }
  });

  it("DESIGN: codes live 10 minutes", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    await runInDurableObject(familyStub(env, parseCode(code)!.fid), async (_obj: TokenFamily, state) => {
      const s = state.storage.kv.get<FamilyState>("state")!;
      s.code!.expiresAt = Date.now() - 1;
      state.storage.kv.put("state", s);
    });
    await expectError(await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT }), 400, "invalid_grant");
  });

  it("DESIGN convention 4: a replay with a wrong verifier is refused without revoking (PKCE is checked before single use)", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const first = (await (await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier })).json()) as Tokens;
    const replay = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: (await pkce()).verifier });
    expect(replay.status).toBe(400);
    expect((await call("/oauth/token/info", { token: first.access_token })).status).toBe(200);
  });

  it("DESIGN: 20 concurrent exchanges of one code yield exactly one success", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
  });
});

/** A replayed code takes access away like /oauth/revoke (DESIGN, "Validation cache"): refused at once, with the cache on or off. */
describe.each(VALIDATION_CACHE_SETTINGS)("DESIGN, authorization code replay revokes what it issued at once ($setting)", ({ seconds }) => {
  const call = callWithValidationCache(seconds);

  it("DESIGN: a replayed code is refused and the tokens issued from it are revoked (audit code_reuse)", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const exchange = () => tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT }, { fetcher: call });
    const first = (await (await exchange()).json()) as Tokens;
    expect((await call("/api/v4/user", { token: first.access_token })).status).toBe(200);
    await expectError(await exchange(), 400, "invalid_grant");
    expect((await call("/api/v4/user", { token: first.access_token })).status).toBe(401);
    const refreshed = await tokenRequest({ grant_type: "refresh_token", client_id: app.uid, client_secret: secret, refresh_token: first.refresh_token }, { fetcher: call });
    expect(refreshed.status).toBe(400);
    const fid = parseCode(code)!.fid;
    const audits = await getDb(env.DB).select().from(auditEvents).where(and(eq(auditEvents.action, "code_reuse"), eq(auditEvents.entityId, fid)));
    expect(audits).toHaveLength(1);
  });
});

describe("DESIGN Changes that finish: a pending change ends the grants made before it, codes included", () => {
  it("a code approved before a pending revocation of the authorization is refused at exchange (invalid_grant), not issued and refused later", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256", scope: "api" });
    // What a revocation interrupted before its effects leaves: the intent alone (src/services/authorizations.ts).
    const recorded = await recordChange(env, { kind: "authorization_revoked", subject: authorizationSubject(user.id, app.id), payload: { userId: user.id, applicationId: app.id }, audit: null });
    expect(recorded).toBe(true);
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
    await expectError(res, 400, "invalid_grant");
  });
});
