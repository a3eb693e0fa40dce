import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { makeApp, tokenRequest } from "./helpers";
import { assertionFields, makeKeyClient, signAssertion } from "./key-client-helpers";

/**
 * client_credentials (RFC 6749 §4.4): a confidential application's token for itself, without a
 * user, only its allowed scopes, bound to a resource (RFC 8707), never refreshed; what the front
 * door makes of it on routes that need a user; /oauth/token/info and introspection.
 */
interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
  error?: string;
  error_description?: string;
}

async function ccToken(app: { uid: string }, secret: string, fields: Record<string, string> = {}) {
  const res = await tokenRequest({ grant_type: "client_credentials", ...fields }, { basic: [app.uid, secret] });
  return { status: res.status, body: (await res.json()) as TokenBody };
}

describe("grant_type=client_credentials (RFC 6749 §4.4)", () => {
  it("§4.4.2, §4.4.3: an authenticated confidential client gets an access token and no refresh token", async () => {
    const { app, secret } = await makeApp({ scopes: ["api", "read_user", "openid"] });
    const { status, body } = await ccToken(app, secret);
    expect(status).toBe(200);
    expect(body.token_type).toBe("bearer");
    expect(body.refresh_token).toBeUndefined();
    expect(body.expires_in).toBeGreaterThan(0);
    // Default: the application's scopes without the OpenID Connect ones, which describe a person.
    expect(body.scope).toBe("api read_user");
    expect(parseAccessToken(body.access_token)!.userId).toBe(0);
  });

  it("§4.4.2: scope narrows within the application's scopes; a wider or OpenID Connect scope is invalid_scope", async () => {
    const { app, secret } = await makeApp({ scopes: ["api", "read_user"] });
    expect((await ccToken(app, secret, { scope: "read_user" })).body.scope).toBe("read_user");
    for (const scope of ["sudo", "api sudo", "openid", "nonsense"]) {
      const { status, body } = await ccToken(app, secret, { scope });
      expect([status, body.error]).toEqual([400, "invalid_scope"]);
    }
  });

  it("§4.4.2 with RFC 7523 §2.2: a private_key_jwt client authenticates with its assertion", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const res = await tokenRequest({ grant_type: "client_credentials", scope: "api", ...assertionFields(await signAssertion(app.uid, privateKey, kid)) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as TokenBody).scope).toBe("api");
  });

  it("§4.4: the client must authenticate; a public client or a dynamically registered one is unauthorized_client", async () => {
    const { app } = await makeApp();
    const unauthenticated = await tokenRequest({ grant_type: "client_credentials", client_id: app.uid });
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as TokenBody).error).toBe("invalid_client");
    const pub = await makeApp({ confidential: false });
    const res = await ccToken(pub.app, pub.secret);
    expect([res.status, res.body.error]).toEqual([400, "unauthorized_client"]);
    const dynamic = await makeApp({ dynamic: true, confidential: true });
    const dyn = await ccToken(dynamic.app, dynamic.secret);
    expect(dyn.body.error).toBe("unauthorized_client");
  });

  it("RFC 8707 §2: the token is bound to the requested resource; an unknown resource is invalid_target", async () => {
    const { app, secret } = await makeApp({ scopes: ["api", "read_user"] });
    const bad = await ccToken(app, secret, { resource: "https://elsewhere.example/api" });
    expect(bad.body.error).toBe("invalid_target");
    const { body } = await ccToken(app, secret, { resource: "http://localhost/api/graphql" });
    const info = await call("/oauth/token/info", { token: body.access_token });
    expect(info.status).toBe(200);
    // Bound to GraphQL: REST refuses it as a token for another resource.
    const rest = await call("/api/v4/version", { token: body.access_token });
    expect(rest.status).toBe(401);
  });

  it("REST and GraphQL routes that act for a user answer 403 with a message saying the token has no user", async () => {
    const { app, secret } = await makeApp({ scopes: ["api", "read_user"] });
    const { body } = await ccToken(app, secret);
    const rest = await call("/api/v4/user", { token: body.access_token });
    expect(rest.status).toBe(403);
    expect(((await rest.json()) as { message: string }).message).toMatch(/client_credentials grant and acts for no user/);
    const graphql = await call("/api/graphql", { ...json({ query: "{ currentUser { username } }" }), token: body.access_token });
    expect(graphql.status).toBe(403);
    expect(JSON.stringify(await graphql.json())).toMatch(/acts for no user/);
  });

  it("GET /oauth/token/info describes it with resource_owner_id null (Doorkeeper)", async () => {
    const { app, secret } = await makeApp({ scopes: ["api"] });
    const { body } = await ccToken(app, secret);
    const info = (await (await call("/oauth/token/info", { token: body.access_token })).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ resource_owner_id: null, scope: ["api"], application: { uid: app.uid } });
  });

  it("RFC 7662 §2.2: the client introspects its own token (sub is the client); another client sees it inactive", async () => {
    const { app, secret } = await makeApp({ scopes: ["api"] });
    const { body } = await ccToken(app, secret);
    const introspect = (uid: string, s: string) =>
      call("/oauth/introspect", {
        method: "POST",
        body: new URLSearchParams({ token: body.access_token }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${uid}:${s}`)}` },
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const own = await introspect(app.uid, secret);
    expect(own).toMatchObject({ active: true, client_id: app.uid, sub: app.uid, scope: "api", token_type: "Bearer", aud: "http://localhost" });
    expect(own.username).toBeUndefined();
    const other = await makeApp();
    expect(await introspect(other.app.uid, other.secret)).toEqual({ active: false });
  });

  it("DESIGN, audit: one token_issued row with the grant type, the application and no author", async () => {
    const { app, secret } = await makeApp({ scopes: ["api"] });
    const { body } = await ccToken(app, secret);
    const fid = parseAccessToken(body.access_token)!.fid;
    const row = await env.DB.prepare("SELECT author_id, details FROM audit_events WHERE action = 'token_issued' AND entity_id = ?").bind(fid).first<{ author_id: number | null; details: string }>();
    expect(row!.author_id).toBeNull();
    expect(JSON.parse(row!.details)).toMatchObject({ grant_type: "client_credentials", application_id: app.id, scopes: ["api"] });
  });

  it("RFC 7009: the client revokes it; deleting the application ends it too", async () => {
    const { app, secret } = await makeApp({ scopes: ["api"] });
    const first = (await ccToken(app, secret)).body.access_token;
    const revoke = await call("/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: first }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` },
    });
    expect(revoke.status).toBe(200);
    expect((await call("/oauth/token/info", { token: first })).status).toBe(401);
    const second = (await ccToken(app, secret)).body.access_token;
    const admin = await makeUserWithToken({ isAdmin: true });
    expect((await call(`/api/v4/applications/${app.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);
    expect((await call("/oauth/token/info", { token: second })).status).toBe(401);
  });

  it("RFC 8414 §2: discovery lists client_credentials among grant_types_supported", async () => {
    const body = (await (await call("/.well-known/openid-configuration")).json()) as { grant_types_supported: string[] };
    expect(body.grant_types_supported).toContain("client_credentials");
  });
});
