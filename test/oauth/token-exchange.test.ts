import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, unique } from "../helpers/fixtures";
import { makeApp, pkceTokens, setUser, tokenRequest } from "./helpers";

/**
 * Token exchange (RFC 8693) for delegation: only ever narrower than the subject token; `act`
 * (§4.1) from an actor_token, visible in introspection and in the audit rows of what it does.
 */
const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS = "urn:ietf:params:oauth:token-type:access_token";

interface Body {
  access_token: string;
  issued_token_type: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
  error?: string;
}

async function exchange(app: { uid: string }, secret: string, subject: string, fields: Record<string, string> = {}) {
  const res = await tokenRequest({ grant_type: GRANT, subject_token: subject, subject_token_type: ACCESS, ...fields }, { basic: [app.uid, secret] });
  return { status: res.status, body: (await res.json()) as Body };
}

function introspect(app: { uid: string }, secret: string, token: string) {
  return call("/oauth/introspect", {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` },
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
}

describe("grant_type=token-exchange (RFC 8693)", () => {
  it("§2.1, §2.2.1: a narrower token for another resource, with issued_token_type and no refresh token", async () => {
    const { app, secret, user, tokens } = await pkceTokens({ confidential: true });
    const { status, body } = await exchange(app, secret, tokens.access_token, { scope: "read_user", resource: "http://localhost/api/graphql" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ issued_token_type: ACCESS, token_type: "bearer", scope: "read_user" });
    expect(body.refresh_token).toBeUndefined();
    const described = await introspect(app, secret, body.access_token);
    expect(described).toMatchObject({ active: true, sub: String(user.id), scope: "read_user", aud: "http://localhost/api/graphql" });
    expect((await call("/api/v4/user", { token: body.access_token })).status).toBe(401);
  });

  it("§2.1: audience may name the resource instead of resource; without either the subject's resource is kept", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const viaAudience = await exchange(app, secret, tokens.access_token, { audience: "http://localhost/api/v4" });
    expect((await introspect(app, secret, viaAudience.body.access_token)).aud).toBe("http://localhost/api/v4");
    const kept = await exchange(app, secret, tokens.access_token);
    expect(kept.body.scope).toBe("api read_user read_repository");
    expect((await introspect(app, secret, kept.body.access_token)).aud).toBe("http://localhost");
    const unknown = await exchange(app, secret, tokens.access_token, { audience: "https://other.example/api" });
    expect(unknown.body.error).toBe("invalid_target");
  });

  it("§2.2.2: a wider scope is invalid_scope and a wider resource invalid_target", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const narrow = await exchange(app, secret, tokens.access_token, { scope: "read_user", resource: "http://localhost/api/v4" });
    expect((await exchange(app, secret, narrow.body.access_token, { scope: "api" })).body.error).toBe("invalid_scope");
    expect((await exchange(app, secret, narrow.body.access_token, { resource: "http://localhost/" })).body.error).toBe("invalid_target");
    expect((await exchange(app, secret, narrow.body.access_token, { resource: "http://localhost/api/graphql" })).body.error).toBe("invalid_target");
  });

  it("§2.2.2: the exchanged token never outlives its subject token", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true, accessTokenTtlSeconds: 120 });
    const subjectExp = (await introspect(app, secret, tokens.access_token)).exp as number;
    await new Promise((r) => setTimeout(r, 1100));
    const { body } = await exchange(app, secret, tokens.access_token, { scope: "read_user" });
    const exp = (await introspect(app, secret, body.access_token)).exp as number;
    expect(exp).toBeLessThanOrEqual(subjectExp);
  });

  it("§2.2.2: another client's token, an unknown token or a wrong token type is refused", async () => {
    const { tokens } = await pkceTokens({ confidential: true });
    const other = await makeApp();
    expect((await exchange(other.app, other.secret, tokens.access_token)).body.error).toBe("invalid_grant");
    expect((await exchange(other.app, other.secret, "gloat-nonsense")).body.error).toBe("invalid_grant");
    const { app, secret, tokens: own } = await pkceTokens({ confidential: true });
    expect((await exchange(app, secret, own.access_token, { subject_token_type: "urn:ietf:params:oauth:token-type:id_token" })).body.error).toBe("invalid_request");
    expect((await exchange(app, secret, own.access_token, { requested_token_type: "urn:ietf:params:oauth:token-type:refresh_token" })).body.error).toBe("invalid_request");
    const missing = await tokenRequest({ grant_type: GRANT, subject_token_type: ACCESS }, { basic: [app.uid, secret] });
    expect(((await missing.json()) as Body).error).toBe("invalid_request");
  });

  it("DESIGN, Blocked users: a blocked user's token is not exchanged", async () => {
    const { app, secret, user, tokens } = await pkceTokens({ confidential: true });
    await setUser(user.id, { state: "blocked" });
    expect((await exchange(app, secret, tokens.access_token)).body.error).toBe("invalid_grant");
  });

  it("§4.1: an actor_token gives the token an act claim, shown by introspection and written into the audit rows of what it does", async () => {
    const { app, secret, user, tokens } = await pkceTokens({ confidential: true });
    const agent = await pkceTokens({ confidential: true });
    const { body } = await exchange(app, secret, tokens.access_token, { actor_token: agent.tokens.access_token, actor_token_type: ACCESS });
    const act = { sub: String(agent.user.id), client_id: agent.app.uid };
    expect((await introspect(app, secret, body.access_token)).act).toEqual(act);
    const path = unique("delegated");
    const created = await call("/api/v4/projects", { ...json({ path }), token: body.access_token });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const row = await env.DB.prepare("SELECT author_id, details FROM audit_events WHERE action = 'project_created' AND entity_id = ?").bind(String(id)).first<{ author_id: number; details: string }>();
    expect(row!.author_id).toBe(user.id);
    expect(JSON.parse(row!.details).act).toEqual(act);
    // Delegated again: the chain nests, the earliest actor innermost.
    const third = await pkceTokens({ confidential: true });
    const again = await exchange(app, secret, body.access_token, { actor_token: third.tokens.access_token, actor_token_type: ACCESS });
    expect((await introspect(app, secret, again.body.access_token)).act).toEqual({ sub: String(third.user.id), client_id: third.app.uid, act });
  });

  it("RFC 8414 §2: discovery lists the token-exchange grant", async () => {
    const body = (await (await call("/.well-known/oauth-authorization-server")).json()) as { grant_types_supported: string[] };
    expect(body.grant_types_supported).toContain(GRANT);
  });
});
