import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { makeUserWithToken } from "../helpers/fixtures";
import { REDIRECT, authorizeUrl, call, getCode, makeApp, pkce, refresh, tokenRequest, type Tokens } from "./helpers";

/**
 * RFC 8707 resource indicators (DESIGN, Agents; docs/agents.md, "Resources"): a token is bound to
 * exactly one of this service's resources (`http://localhost`, `…/api/v4`, `…/api/graphql` in
 * tests), by default the whole service; another resource is invalid_target; an exchange or a
 * refresh may narrow within the authorized resource, never widen; the APIs refuse a token bound
 * elsewhere; introspection returns aud. Also RFC 9728 §5.1 and RFC 6750 §3.1 on the refusals.
 */
const ISSUER = "http://localhost";

async function grant(authorizeResource?: string, tokenResource?: string) {
  const { app, secret } = await makeApp({ confidential: true });
  const { user, browser } = await signedInUser();
  const { verifier, challenge } = await pkce();
  const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256", resource: authorizeResource });
  const fields: Record<string, string> = { grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier };
  if (tokenResource) fields.resource = tokenResource;
  const res = await tokenRequest(fields);
  return { app, secret, user, browser, code, verifier, res };
}

async function tokensOf(res: Response): Promise<Tokens> {
  expect(res.status).toBe(200);
  return (await res.json()) as Tokens;
}

async function aud(app: { uid: string }, secret: string, token: string): Promise<unknown> {
  const res = await call("/oauth/introspect", {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` },
  });
  return ((await res.json()) as { aud?: unknown }).aud;
}

const graphql = (token: string) =>
  call("/api/graphql", { method: "POST", token, body: JSON.stringify({ query: "{ currentUser { username } }" }), headers: { "Content-Type": "application/json" } });

describe("RFC 8707 resource indicators", () => {
  it("§2: a resource that is not this service's (https://elsewhere.example/mcp) is invalid_target at the authorization endpoint", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const res = await browser.fetch(
      authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", resource: "https://elsewhere.example/mcp", state: "s" }),
    );
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_target");
    expect(loc.searchParams.get("state")).toBe("s");
  });

  it("§2: more than one resource at the authorization endpoint is invalid_target (a token has exactly one audience)", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const url = authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", resource: `${ISSUER}/api/v4` });
    const res = await browser.fetch(`${url}&resource=${encodeURIComponent(`${ISSUER}/api/graphql`)}`);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  it("§2.2: without resource the token is bound to the whole service (aud = issuer) and every API accepts it", async () => {
    const { app, secret, res } = await grant();
    const tokens = await tokensOf(res);
    expect(await aud(app, secret, tokens.access_token)).toBe(ISSUER);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    expect((await graphql(tokens.access_token)).status).toBe(200);
  });

  it("a token bound to /api/v4 is accepted there and refused by GraphQL (401 invalid_token): no confused deputy", async () => {
    const { app, secret, res } = await grant(`${ISSUER}/api/v4`);
    const tokens = await tokensOf(res);
    expect(await aud(app, secret, tokens.access_token)).toBe(`${ISSUER}/api/v4`);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    const refused = await graphql(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(refused.headers.get("www-authenticate")).toContain(`resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/graphql"`);
  });

  it("a trailing slash on the root resource (https://host/, as clients derive it from a URL) names the whole service", async () => {
    const { app, secret, res } = await grant(`${ISSUER}/`);
    expect(await aud(app, secret, (await tokensOf(res)).access_token)).toBe(ISSUER);
  });

  it("§2.2: the token request may narrow the authorized resource; a wider one is invalid_target and leaves the code usable", async () => {
    const narrow = await grant(ISSUER, `${ISSUER}/api/graphql`);
    const t = await tokensOf(narrow.res);
    expect(await aud(narrow.app, narrow.secret, t.access_token)).toBe(`${ISSUER}/api/graphql`);
    expect((await call("/api/v4/user", { token: t.access_token })).status).toBe(401);

    const wide = await grant(`${ISSUER}/api/v4`, ISSUER);
    expect(wide.res.status).toBe(400);
    expect(await wide.res.json()).toMatchObject({ error: "invalid_target" });
    const retry = await tokenRequest({ grant_type: "authorization_code", client_id: wide.app.uid, code: wide.code, redirect_uri: REDIRECT, code_verifier: wide.verifier });
    expect(await aud(wide.app, wide.secret, (await tokensOf(retry)).access_token)).toBe(`${ISSUER}/api/v4`);
  });

  it("§2.2: a refresh may narrow within the grant, never widen; without resource it returns to the authorized one", async () => {
    const { app, secret, res } = await grant();
    const first = await tokensOf(res);
    const narrowed = await tokensOf(await refresh(app, first.refresh_token, { resource: `${ISSUER}/api/v4`, client_secret: secret }));
    expect(await aud(app, secret, narrowed.access_token)).toBe(`${ISSUER}/api/v4`);
    expect((await graphql(narrowed.access_token)).status).toBe(401);
    const again = await tokensOf(await refresh(app, narrowed.refresh_token, { client_secret: secret }));
    expect(await aud(app, secret, again.access_token)).toBe(ISSUER);

    const bound = await grant(`${ISSUER}/api/v4`);
    const b = await tokensOf(bound.res);
    const widen = await refresh(bound.app, b.refresh_token, { resource: ISSUER, client_secret: bound.secret });
    expect(widen.status).toBe(400);
    expect(await widen.json()).toMatchObject({ error: "invalid_target" });
    // Nothing rotated: the refresh token still works for the authorized resource.
    expect((await refresh(bound.app, b.refresh_token, { client_secret: bound.secret })).status).toBe(200);
  });

  it("§2: the token endpoint refuses a resource of another server with invalid_target, whatever the grant", async () => {
    const { app, res } = await grant();
    const tokens = await tokensOf(res);
    const other = await refresh(app, tokens.refresh_token, { resource: "https://elsewhere.example/mcp" });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: "invalid_target" });
    const fragment = await refresh(app, tokens.refresh_token, { resource: `${ISSUER}/api/v4#x` });
    expect(await fragment.json()).toMatchObject({ error: "invalid_target" });
  });
});

describe("RFC 9728 §5.1 and RFC 6750 §3.1 on refusals", () => {
  it("§3: each resource has its metadata document, whose resource is the path it is served under", async () => {
    for (const path of ["", "/api/v4", "/api/graphql"]) {
      const body = (await (await call(`/.well-known/oauth-protected-resource${path}`)).json()) as { resource: string; authorization_servers: string[] };
      expect(body.resource).toBe(`${ISSUER}${path}`);
      expect(body.authorization_servers).toEqual([ISSUER]);
    }
  });

  it("§5.1: a 401 of /api/v4 names the metadata of the resource /api/v4", async () => {
    const res = await call("/api/v4/user");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="GitLab", resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/v4"`);
  });

  it("RFC 6750 §3.1: a 403 for a missing scope carries error=insufficient_scope, the scopes that would do, and resource_metadata (step-up)", async () => {
    const { token } = await makeUserWithToken({ scopes: ["read_user"] });
    const res = await call("/api/v4/projects", { method: "POST", token, body: JSON.stringify({ name: "x" }), headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(403);
    const header = res.headers.get("www-authenticate")!;
    expect(header).toContain('error="insufficient_scope"');
    expect(header).toMatch(/scope="[^"]*\bapi\b[^"]*"/);
    expect(header).toContain(`resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/v4"`);

    const gql = await graphql((await makeUserWithToken({ scopes: ["read_user"] })).token);
    expect(gql.status).toBe(403);
    expect(gql.headers.get("www-authenticate")).toBe(`Bearer realm="GitLab", error="insufficient_scope", scope="api read_api", resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/api/graphql"`);
  });
});
