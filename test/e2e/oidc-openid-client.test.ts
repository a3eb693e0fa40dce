import * as client from "openid-client";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { authorizeInBrowser, baseURL, browserAndCallback, createApp, createUser, rootToken } from "./idp-helpers";

/**
 * issue 11, end to end: panva's certified relying-party library (openid-client) against the server
 * `npm start` runs: discovery, code + PKCE with openid profile email while headless Chromium signs
 * in and authorizes, id_token verified against the JWKS, userinfo, refresh.
 */
const fx = browserAndCallback();

describe("OpenID Connect Core 1.0 and Discovery 1.0 with openid-client", () => {
  it("Discovery §4, Core §3.1 (code + PKCE), §3.1.3.7 (id_token validation against the JWKS), §5.3 (userinfo), §12 (refresh)", async () => {
    const admin = await rootToken();
    const user = await createUser(admin, "oidc");
    const app = await createApp(admin, { name: "E2E OIDC RP", redirect_uri: fx.redirectUri, scopes: "openid profile email", confidential: false });

    const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(baseURL);
    expect(meta.jwks_uri).toBe(`${baseURL}/oauth/discovery/keys`);

    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      scope: "openid profile email",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      nonce,
      state,
    });
    const { callback } = await authorizeInBrowser(fx.browser, url, user.username, fx.redirectUri);

    // The library checks state, iss (RFC 9207), the id_token's signature (JWKS), iss, aud, exp, iat and nonce.
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(String(user.id));
    expect(claims.preferred_username).toBe(user.username);
    expect(claims.email).toBe(user.email);
    expect(typeof claims.auth_time).toBe("number");
    // Verified once more independently of the library, with jose against the published JWKS.
    const jwks = createLocalJWKSet((await (await fetch(meta.jwks_uri!)).json()) as never);
    await expect(jwtVerify(tokens.id_token!, jwks, { issuer: baseURL, audience: app.application_id })).resolves.toBeTruthy();

    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({ sub: String(user.id), email: user.email, nickname: user.username });
    expect(Array.isArray(info.groups)).toBe(true);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.claims()!.sub).toBe(claims.sub);
    expect(refreshed.claims()!.auth_time).toBe(claims.auth_time);
  });
});
