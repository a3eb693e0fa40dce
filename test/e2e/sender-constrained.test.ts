import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { authorizeInBrowser, baseURL, browserAndCallback, createApp, createUser, rootToken } from "./idp-helpers";

/**
 * Sender-constrained tokens end to end (docs/oauth.md): against the server `npm start` runs, real
 * client libraries push their authorization requests (RFC 9126), sign them (RFC 9101), bind their
 * tokens to a DPoP key (RFC 9449) and retry on use_dpop_nonce, while headless Chromium signs in
 * and authorizes.
 */
const fx = browserAndCallback();
const insecure = { [oauth.allowInsecureRequests]: true };

/** RFC 9449 §8, §9: the one retry a client makes when the server asks for (a new) nonce. */
async function withNonceRetry<T>(go: () => Promise<T>): Promise<{ value: T; retried: boolean }> {
  try {
    return { value: await go(), retried: false };
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    return { value: await go(), retried: true };
  }
}

describe("RFC 9449 DPoP and RFC 9126 PAR with oauth4webapi", () => {
  it("PAR with a DPoP proof (use_dpop_nonce retried), code exchange with DPoPHandle, DPoP calls to the API, refresh with the same key; the token is refused as Bearer", async () => {
    const admin = await rootToken();
    const user = await createUser(admin, "dpop");
    const app = await createApp(admin, { name: "E2E DPoP client", redirect_uri: fx.redirectUri, scopes: "api read_user", confidential: false, dpop_bound_access_tokens: true });
    const issuer = new URL(baseURL);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
    expect(as.dpop_signing_alg_values_supported).toContain("ES256");
    expect(as.pushed_authorization_request_endpoint).toBe(`${baseURL}/oauth/par`);
    const oauthClient: oauth.Client = { client_id: app.application_id };
    const keyPair = await oauth.generateKeyPair("ES256");
    const DPoP = oauth.DPoP(oauthClient, keyPair);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = { redirect_uri: fx.redirectUri, response_type: "code", scope: "api read_user", state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" };
    // The first proof carries no nonce: PAR answers use_dpop_nonce, the handle keeps the nonce, the retry succeeds.
    const pushed = await withNonceRetry(async () =>
      oauth.processPushedAuthorizationResponse(as, oauthClient, await oauth.pushedAuthorizationRequest(as, oauthClient, oauth.None(), params, { DPoP, ...insecure })),
    );
    expect(pushed.retried).toBe(true);
    expect(pushed.value.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", oauthClient.client_id);
    url.searchParams.set("request_uri", pushed.value.request_uri);
    const { callback } = await authorizeInBrowser(fx.browser, url, user.username, fx.redirectUri);

    const callbackParams = oauth.validateAuthResponse(as, oauthClient, callback, state);
    const { value: tokens } = await withNonceRetry(async () =>
      oauth.processAuthorizationCodeResponse(as, oauthClient, await oauth.authorizationCodeGrantRequest(as, oauthClient, oauth.None(), callbackParams, fx.redirectUri, verifier, { DPoP, ...insecure })),
    );
    expect(tokens.token_type).toBe("dpop");

    const me = await withNonceRetry(() => oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${baseURL}/api/v4/user`), undefined, undefined, { DPoP, ...insecure }));
    expect(me.value.status).toBe(200);
    expect(((await me.value.json()) as { username: string }).username).toBe(user.username);

    // A stolen token is useless without the key: as Bearer, or with another key's proof.
    const asBearer = await fetch(`${baseURL}/api/v4/user`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get("www-authenticate")).toContain('DPoP error="invalid_token"');
    const statusOf = (p: Promise<{ value: Response }>) => p.then((r) => r.value.status, (e) => (e instanceof oauth.WWWAuthenticateChallengeError ? e.status : String(e)));
    const thief = oauth.DPoP(oauthClient, await oauth.generateKeyPair("ES256"));
    expect(await statusOf(withNonceRetry(() => oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${baseURL}/api/v4/user`), undefined, undefined, { DPoP: thief, ...insecure })))).toBe(401);

    // A fresh handle of the same key holds no nonce yet: the resource door asks for one (§9), the retry succeeds.
    const sameKey = oauth.DPoP(oauthClient, keyPair);
    const again = await withNonceRetry(() => oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${baseURL}/api/v4/user`), undefined, undefined, { DPoP: sameKey, ...insecure }));
    expect(again.retried).toBe(true);
    expect(again.value.status).toBe(200);

    const { value: refreshed } = await withNonceRetry(async () =>
      oauth.processRefreshTokenResponse(as, oauthClient, await oauth.refreshTokenGrantRequest(as, oauthClient, oauth.None(), tokens.refresh_token!, { DPoP, ...insecure })),
    );
    expect(refreshed.token_type).toBe("dpop");
    // Without the key, the public client's bound refresh token does not refresh.
    const noKey = await fetch(`${baseURL}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", client_id: oauthClient.client_id, refresh_token: refreshed.refresh_token! }) });
    expect(noKey.status).toBe(400);
  });
});

describe("RFC 9449, RFC 9126 and RFC 9101 with openid-client", () => {
  it("a signed request object (JAR) pushed with PAR and a DPoP key, the code exchanged with DPoP, the API called with fetchProtectedResource", async () => {
    const admin = await rootToken();
    const user = await createUser(admin, "jar");
    const signing = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(signing.publicKey);
    const app = await createApp(admin, {
      name: "E2E JAR client",
      redirect_uri: fx.redirectUri,
      scopes: "openid api read_user",
      confidential: false,
      jwks: { keys: [{ ...jwk, use: "sig", alg: "ES256" }] },
      require_pushed_authorization_requests: true,
    });
    const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
    expect(config.serverMetadata().request_parameter_supported).toBe(true);
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const signed = await client.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: fx.redirectUri, scope: "openid api", state, nonce, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" },
      signing.privateKey,
    );
    expect(signed.searchParams.get("request")).toBeTruthy();
    // The request object is pushed (the client requires PAR); openid-client retries use_dpop_nonce itself.
    const url = await client.buildAuthorizationUrlWithPAR(config, signed.searchParams, { DPoP });
    expect(url.searchParams.get("request_uri")).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const { callback } = await authorizeInBrowser(fx.browser, url, user.username, fx.redirectUri);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true }, undefined, { DPoP });
    expect(tokens.token_type).toBe("dpop");
    const me = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${baseURL}/api/v4/user`), "GET", undefined, undefined, { DPoP });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  });
});
