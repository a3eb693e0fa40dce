import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { baseURL } from "./idp-helpers";

/**
 * RFC 7592 client configuration on `npm start`: openid-client registers the client (RFC 7591) and
 * keeps the registration response's metadata, registration_access_token and
 * registration_client_uri among them. Neither openid-client nor oauth4webapi implements RFC 7592's
 * read, update and delete, so the client does them with fetch, as docs/oauth.md shows; the
 * authorization endpoint, reached with openid-client's own URLs, shows each change took effect.
 */
const insecure = { execute: [client.allowInsecureRequests] };
const FIRST = "http://127.0.0.1:47001/callback";
// Another path, not another port: a loopback redirect matches on any port (RFC 8252 §7.3).
const SECOND = "http://127.0.0.1:47001/second-callback";

/** What /oauth/authorize does with openid-client's URL for this redirect URI: 302 to sign in when registered, 400 otherwise. */
async function authorizeStatus(config: client.Configuration, redirectUri: string): Promise<number> {
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "read_user",
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: "S256",
  });
  return (await fetch(url, { redirect: "manual" })).status;
}

describe("RFC 7592 with openid-client's registration: read, update (the token rotates), delete", () => {
  it("§3 token and URI kept by openid-client; §2.1 read; §2.2 update adds a redirect URI; §2.3 delete ends the client", async () => {
    const config = await client.dynamicClientRegistration(
      new URL(baseURL),
      { client_name: "E2E managed agent", redirect_uris: [FIRST], token_endpoint_auth_method: "none", scope: "read_user" },
      client.None(),
      insecure,
    );
    const meta = config.clientMetadata();
    const uri = meta.registration_client_uri as string;
    let token = meta.registration_access_token as string;
    expect(uri).toBe(`${baseURL}/oauth/register/${meta.client_id}`);
    expect(token).toMatch(/^glrat-[0-9a-f]{64}$/);

    const read = await fetch(uri, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    const current = (await read.json()) as Record<string, unknown>;
    expect(current.redirect_uris).toEqual([FIRST]);
    expect(await authorizeStatus(config, SECOND)).toBe(400);

    const put = await fetch(uri, {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ ...current, redirect_uris: [FIRST, SECOND] }),
    });
    expect(put.status).toBe(200);
    const updated = (await put.json()) as { registration_access_token: string; redirect_uris: string[]; client_name: string };
    expect(updated.redirect_uris).toEqual([FIRST, SECOND]);
    expect(updated.client_name).toBe("[Unverified Dynamic Application] E2E managed agent");
    expect(updated.registration_access_token).not.toBe(token);
    expect((await fetch(uri, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    token = updated.registration_access_token;
    expect(await authorizeStatus(config, SECOND)).toBe(302);

    expect((await fetch(uri, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } })).status).toBe(204);
    const gone = await fetch(uri, { headers: { Authorization: `Bearer ${token}` } });
    expect(gone.status).toBe(401);
    expect(gone.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
    expect(await authorizeStatus(config, FIRST)).toBe(400);
  });
});
