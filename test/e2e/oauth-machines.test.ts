import { exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { USER_PASSWORD, baseURL, createApp, createUser, rootToken } from "./idp-helpers";

/**
 * Machines and delegation end to end against `npm start`: client_credentials with private_key_jwt
 * (RFC 6749 §4.4, RFC 7523 §2.2) through oauth4webapi and with a client secret through
 * openid-client, then token exchange (RFC 8693) through both libraries' generic grant requests.
 */
const insecure = { [oauth.allowInsecureRequests]: true };
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS = "urn:ietf:params:oauth:token-type:access_token";

async function authorizationServer() {
  const issuer = new URL(baseURL);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
}

/** A password-grant token of a fresh user, issued to `app` (the subject token of an exchange). */
async function userToken(app: { application_id: string; secret: string }, username: string) {
  const res = await fetch(`${baseURL}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.application_id}:${app.secret}`)}` },
    body: new URLSearchParams({ grant_type: "password", username, password: USER_PASSWORD, scope: "api read_user" }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe("machines: client_credentials and key-based client authentication", () => {
  it("RFC 6749 §4.4 with RFC 7523 §2.2: oauth4webapi's clientCredentialsGrantRequest with PrivateKeyJwt", async () => {
    const admin = await rootToken();
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const kid = "e2e-key-1";
    const app = await createApp(admin, {
      name: "E2E machine (key)",
      redirect_uri: "https://machine.example/cb",
      scopes: "api read_user",
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }] },
      token_endpoint_auth_method: "private_key_jwt",
    });
    const as = await authorizationServer();
    expect(as.token_endpoint_auth_methods_supported).toContain("private_key_jwt");
    expect(as.grant_types_supported).toContain("client_credentials");
    const c: oauth.Client = { client_id: app.application_id };
    const auth = oauth.PrivateKeyJwt({ key: privateKey, kid });
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      c,
      await oauth.clientCredentialsGrantRequest(as, c, auth, new URLSearchParams({ scope: "read_user" }), insecure),
    );
    expect(tokens.scope).toBe("read_user");
    expect(tokens.refresh_token).toBeUndefined();
    const info = (await (await fetch(`${baseURL}/oauth/token/info`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ resource_owner_id: null, application: { uid: app.application_id } });
    const user = await fetch(`${baseURL}/api/v4/user`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(user.status).toBe(403);
    // Introspection with a fresh assertion: the client's own token, its subject the client.
    const introspected = await oauth.processIntrospectionResponse(as, c, await oauth.introspectionRequest(as, c, auth, tokens.access_token, insecure));
    expect(introspected).toMatchObject({ active: true, sub: app.application_id, client_id: app.application_id });
  });

  it("RFC 6749 §4.4: openid-client's clientCredentialsGrant with a client secret", async () => {
    const admin = await rootToken();
    const app = await createApp(admin, { name: "E2E machine (secret)", redirect_uri: "https://machine.example/cb", scopes: "api" });
    const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.ClientSecretPost(app.secret), { execute: [client.allowInsecureRequests] });
    const tokens = await client.clientCredentialsGrant(config, { scope: "api" });
    expect(tokens.scope).toBe("api");
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.expires_in).toBeGreaterThan(0);
  });
});

describe("delegation: token exchange (RFC 8693)", () => {
  it("§2.1: oauth4webapi's genericTokenEndpointRequest narrows a user's token, with an actor", async () => {
    const admin = await rootToken();
    const person = await createUser(admin, "delegator");
    const app = await createApp(admin, { name: "E2E agent", redirect_uri: "https://agent.example/cb", scopes: "api read_user" });
    const subject = await userToken(app, person.username);
    const actor = await userToken(app, (await createUser(admin, "actor")).username);
    const as = await authorizationServer();
    expect(as.grant_types_supported).toContain(TOKEN_EXCHANGE);
    const c: oauth.Client = { client_id: app.application_id };
    const auth = oauth.ClientSecretBasic(app.secret);
    const exchanged = await oauth.processGenericTokenEndpointResponse(
      as,
      c,
      await oauth.genericTokenEndpointRequest(
        as,
        c,
        auth,
        TOKEN_EXCHANGE,
        new URLSearchParams({ subject_token: subject, subject_token_type: ACCESS, actor_token: actor, actor_token_type: ACCESS, scope: "read_user", resource: `${baseURL}/api/v4` }),
        insecure,
      ),
    );
    expect(exchanged.issued_token_type).toBe(ACCESS);
    expect(exchanged.scope).toBe("read_user");
    const me = (await (await fetch(`${baseURL}/api/v4/user`, { headers: { Authorization: `Bearer ${exchanged.access_token}` } })).json()) as { username: string };
    expect(me.username).toBe(person.username);
    const described = await oauth.processIntrospectionResponse(as, c, await oauth.introspectionRequest(as, c, auth, exchanged.access_token, insecure));
    expect((described.act as { sub: string }).sub).toBeTruthy();
    // Wider than the subject: refused.
    const wider = await oauth.genericTokenEndpointRequest(as, c, auth, TOKEN_EXCHANGE, new URLSearchParams({ subject_token: exchanged.access_token, subject_token_type: ACCESS, scope: "api" }), insecure);
    await expect(oauth.processGenericTokenEndpointResponse(as, c, wider)).rejects.toMatchObject({ error: "invalid_scope" });
  });

  it("§2.1: openid-client's genericGrantRequest exchanges for a token bound to GraphQL", async () => {
    const admin = await rootToken();
    const person = await createUser(admin, "delegator");
    const app = await createApp(admin, { name: "E2E agent 2", redirect_uri: "https://agent.example/cb", scopes: "api read_user" });
    const subject = await userToken(app, person.username);
    const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.ClientSecretBasic(app.secret), { execute: [client.allowInsecureRequests] });
    const exchanged = await client.genericGrantRequest(config, TOKEN_EXCHANGE, { subject_token: subject, subject_token_type: ACCESS, audience: `${baseURL}/api/graphql` });
    expect(exchanged.issued_token_type).toBe(ACCESS);
    const rest = await fetch(`${baseURL}/api/v4/user`, { headers: { Authorization: `Bearer ${exchanged.access_token}` } });
    expect(rest.status).toBe(401);
    const graphql = await fetch(`${baseURL}/api/graphql`, {
      method: "POST",
      headers: { Authorization: `Bearer ${exchanged.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ currentUser { username } }" }),
    });
    expect(((await graphql.json()) as { data: { currentUser: { username: string } } }).data.currentUser.username).toBe(person.username);
  });
});
