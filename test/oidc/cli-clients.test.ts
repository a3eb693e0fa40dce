import { describe, expect, it } from "vitest";
import { sha256Base64Url } from "../../src/crypto/hash";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, call, getCode, makeApp, refresh, tokenRequest } from "../oauth/helpers";
import { oidcLogin, verifyIdToken } from "./helpers";

/** DESIGN, Agents: the command-line clients people already use, as they talk to GitLab. */
describe("DESIGN, Agents: PKCE verifiers compared as GitLab compares them (hash and compare)", () => {
  it("a standard-base64 verifier with + / = (git-credential-oauth 0.4.2) is hashed and compared: the exchange and the refresh succeed", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const verifier = "a+b/c=" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(30))));
    expect(verifier.length).toBeGreaterThanOrEqual(43);
    const challenge = await sha256Base64Url(verifier);
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { refresh_token: string };
    expect((await refresh(app, tokens.refresh_token, { code_verifier: verifier })).status).toBe(200);
  });

  it("the hash must still match: another base64 verifier is invalid_grant; fewer than 43 characters is invalid_grant", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const verifier = "+/=".repeat(15);
    const code = await getCode(browser, { client_id: app.uid, code_challenge: await sha256Base64Url(verifier), code_challenge_method: "S256" });
    const exchange = (v: string) => tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: v });
    expect(((await (await exchange("=/+".repeat(15))).json()) as { error: string }).error).toBe("invalid_grant");
    expect(((await (await exchange("+/=".repeat(14))).json()) as { error: string }).error).toBe("invalid_grant");
  });
});

describe("DESIGN, Identity provider: picture as /api/v4 publishes the avatar", () => {
  it("the id_token and userinfo carry picture equal to /api/v4/user's avatar_url; no empty website claim", async () => {
    const { app, tokens } = await oidcLogin("openid api");
    const claims = await verifyIdToken(tokens.id_token!, app.uid);
    const me = (await (await call("/api/v4/user", { token: tokens.access_token })).json()) as { avatar_url: string };
    expect(claims.picture).toBe(me.avatar_url);
    expect(claims).not.toHaveProperty("website");
    const info = (await (await call("/oauth/userinfo", { token: tokens.access_token })).json()) as Record<string, unknown>;
    expect(info.picture).toBe(me.avatar_url);
  });
});
