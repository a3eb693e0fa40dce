import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { Browser, signedInUser } from "../helpers/browser";
import { expectNotice } from "../helpers/notices";
import { callAt, callerAt } from "../helpers/versioned";
import { REDIRECT, authorizeUrl, decide, makeApp, pkce, tokenRequest, type Tokens } from "./helpers";

async function browserAt(version: string) {
  const fetcher = callerAt(version);
  return { fetcher, ...(await signedInUser(new Browser(fetcher))) };
}

describe("spec Versioning: implicit grant deprecated in 14.0, removed in 15.0 (gate oauth-implicit-grant)", () => {
  it("below 15.0 (14.10): response_type=token returns the token in the fragment, with Deprecation and Sunset headers", async () => {
    const { app } = await makeApp();
    const { browser } = await browserAt("14.10");
    const page = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "token", state: "imp" }));
    expect(page.status).toBe(200);
    expectNotice(page.headers, "oauth-implicit-grant");
    expect(page.headers.get("sunset")).not.toBeNull();
    const res = await decide(browser, { client_id: app.uid, redirect_uri: REDIRECT, response_type: "token", state: "imp" });
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.search).toBe("");
    const frag = new URLSearchParams(loc.hash.slice(1));
    expect(frag.get("access_token")).toMatch(/^gloat-/);
    expect(frag.get("token_type")).toBe("bearer");
    expect(frag.get("state")).toBe("imp");
    expect(frag.get("expires_in")).toBe("7200");
    const info = await callAt("14.10", "/oauth/token/info", { token: frag.get("access_token")! });
    expect(info.status).toBe(200);
  });

  it("RFC 9207 §2: below 15.0 the implicit grant's fragment carries iss, the issuer, beside the token and on a denial", async () => {
    const { app } = await makeApp();
    const { browser } = await browserAt("14.10");
    const issuer = ((await (await callAt("14.10", "/.well-known/openid-configuration")).json()) as { issuer: string }).issuer;
    const params = { client_id: app.uid, redirect_uri: REDIRECT, response_type: "token", state: "imp-iss" };
    const approved = new URL((await decide(browser, params)).headers.get("location")!);
    const frag = new URLSearchParams(approved.hash.slice(1));
    expect(frag.get("access_token")).toMatch(/^gloat-/);
    expect(frag.get("iss")).toBe(issuer);
    expect(approved.searchParams.get("iss")).toBeNull();
    const denied = new URL((await decide(browser, params, "deny")).headers.get("location")!);
    const deniedFrag = new URLSearchParams(denied.hash.slice(1));
    expect(deniedFrag.get("error")).toBe("access_denied");
    expect(deniedFrag.get("iss")).toBe(issuer);
  });

  it("from 15.0: response_type=token is refused with unsupported_response_type", async () => {
    const { app } = await makeApp();
    const { browser } = await browserAt("15.0");
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "token", state: "imp" }));
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("unsupported_response_type");
    expect(loc.searchParams.get("state")).toBe("imp");
    expect(res.headers.get("deprecation")).toBeNull();
  });
});

describe("spec Versioning: tokens without expiry (gate oauth-tokens-without-expiry)", () => {
  async function codeFlowAt(version: string, expireAccessTokens: boolean) {
    const { app } = await makeApp({ confidential: false, expireAccessTokens });
    const { browser, fetcher } = await browserAt(version);
    const { verifier, challenge } = await pkce();
    const res = await decide(browser, { client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256" });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const tokens = (await (
      await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier }, { fetcher })
    ).json()) as Tokens;
    return { app, tokens, fetcher };
  }

  it("below 15.0: an application without 'Expire access tokens' issues non-expiring tokens (no expires_in; token info null)", async () => {
    const { tokens, fetcher } = await codeFlowAt("14.10", false);
    expect(tokens).not.toHaveProperty("expires_in");
    const info = (await (await fetcher("/oauth/token/info", { token: tokens.access_token })).json()) as Record<string, unknown>;
    expect(info.expires_in).toBeNull();
    expect(info.expires_in_seconds).toBeNull();
  });

  it("below 15.0: an application with 'Expire access tokens' opts in early (2 hours)", async () => {
    const { tokens } = await codeFlowAt("14.10", true);
    expect(tokens.expires_in).toBe(7200);
  });

  it("from 15.0: every new token expires, even for applications without 'Expire access tokens'", async () => {
    const { tokens } = await codeFlowAt("15.0", false);
    expect(tokens.expires_in).toBe(7200);
  });

  it("from 15.0: a stored token without expiry gets one when read (spec: generated for every existing token lacking one)", async () => {
    const { tokens } = await codeFlowAt("14.10", false);
    const stub = familyStub(env, parseAccessToken(tokens.access_token)!.fid);
    const read = () =>
      runInDurableObject(stub, async (_o: TokenFamily, state) => state.storage.kv.get<FamilyState>("state")!.access!.expiresAt);
    expect(await read()).toBeNull();
    const info = (await (await callAt("16.0", "/oauth/token/info", { token: tokens.access_token })).json()) as { expires_in: number };
    expect(info.expires_in).toBeGreaterThan(7000);
    expect(info.expires_in).toBeLessThanOrEqual(7200);
    expect(await read()).toBeTypeOf("number");
    // Kept from then on, whatever version reads it next.
    const later = (await (await callAt("14.10", "/oauth/token/info", { token: tokens.access_token })).json()) as { expires_in: number };
    expect(later.expires_in).toBeTypeOf("number");
  });

  it("from 15.0: a refresh of a non-expiring family issues an expiring pair", async () => {
    const { app, tokens } = await codeFlowAt("14.10", false);
    const res = await tokenRequest({ grant_type: "refresh_token", client_id: app.uid, refresh_token: tokens.refresh_token }, { fetcher: callerAt("15.0") });
    expect(((await res.json()) as Tokens).expires_in).toBe(7200);
  });
});
