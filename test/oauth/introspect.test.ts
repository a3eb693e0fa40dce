import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { countingEnv } from "../helpers/d1-counting";
import { call, makeApp, pkceTokens, type Tokens } from "./helpers";

const introspect = (token: string, basic?: [string, string]) =>
  call("/oauth/introspect", {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...(basic ? { Authorization: `Basic ${btoa(`${basic[0]}:${basic[1]}`)}` } : {}) },
  });

describe("POST /oauth/introspect (RFC 7662)", () => {
  it("§2.2: an active access token of the authenticated client is described", async () => {
    const { app, secret, user, tokens } = await pkceTokens({ confidential: true });
    const res = await introspect(tokens.access_token, [app.uid, secret]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ active: true, client_id: app.uid, username: user.username, sub: String(user.id), token_type: "Bearer" });
    expect(body.scope).toBe("api read_user read_repository");
    expect(body.exp).toBeGreaterThan(Date.now() / 1000);
    const refresh = (await (await introspect(tokens.refresh_token, [app.uid, secret])).json()) as Record<string, unknown>;
    expect(refresh.active).toBe(true);
  });

  it("§2.2: unknown tokens and tokens of other clients are inactive", async () => {
    const { tokens } = await pkceTokens();
    const other = await makeApp();
    for (const token of [tokens.access_token, "nonsense"]) {
      const res = await introspect(token, [other.app.uid, other.secret]);
      expect(await res.json()).toEqual({ active: false });
    }
  });

  it("§2.1: the client must authenticate (401 invalid_client)", async () => {
    const { app, tokens } = await pkceTokens();
    const res = await call("/oauth/introspect", {
      method: "POST",
      body: new URLSearchParams({ token: tokens.access_token, client_id: app.uid }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("docs/oauth.md, One hop: with a young user snapshot in the family, introspection reads D1 once (the client), not the user row too", async () => {
    const { app: client, secret, user, tokens } = await pkceTokens({ confidential: true });
    // A request with the token leaves the user snapshot in the family.
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    const { env: counted, counts } = countingEnv();
    const ask = async () => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request("http://localhost/oauth/introspect", {
          method: "POST",
          body: new URLSearchParams({ token: tokens.access_token }),
          headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.uid}:${secret}`)}` },
        }),
        counted,
        ctx,
      );
      expect(await res.json()).toMatchObject({ active: true, username: user.username });
      await waitOnExecutionContext(ctx);
    };
    // The first request on a new env object runs the once-per-isolate checks (schema, first start).
    await ask();
    counts.roundTrips = 0;
    await ask();
    expect(counts.roundTrips).toBe(1);
  });
});

describe("RFC 7662 §2.2: tokens that no longer work are {\"active\":false}, and nothing more", () => {
  const revoke = (app: { uid: string }, secret: string, token: string) =>
    call("/oauth/revoke", { method: "POST", body: new URLSearchParams({ token }), headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` } });

  it("a revoked access token and its refresh token (RFC 7009) are inactive", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    expect((await revoke(app, secret!, tokens.access_token)).status).toBe(200);
    for (const token of [tokens.access_token, tokens.refresh_token]) expect(await (await introspect(token, [app.uid, secret!])).json()).toEqual({ active: false });
  });

  it("tokens rotated away by a refresh are inactive; the new pair is active", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const rotated = await call("/oauth/token", {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}` },
    });
    expect(rotated.status).toBe(200);
    const fresh = (await rotated.json()) as Tokens;
    for (const token of [tokens.access_token, tokens.refresh_token]) expect(await (await introspect(token, [app.uid, secret!])).json()).toEqual({ active: false });
    expect(((await (await introspect(fresh.access_token, [app.uid, secret!])).json()) as { active: boolean }).active).toBe(true);
  });

  it("a family revoked by refresh-token reuse: every token of it, the newest pair included, is inactive", async () => {
    const { app, secret, tokens } = await pkceTokens({ confidential: true });
    const basic = { Authorization: `Basic ${btoa(`${app.uid}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" };
    const rotate = (refreshToken: string) => call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }), headers: basic });
    const fresh = (await (await rotate(tokens.refresh_token)).json()) as Tokens;
    expect((await call("/api/v4/user", { token: fresh.access_token })).status).toBe(200); // the new pair is used: the old refresh token is past its grace
    expect((await rotate(tokens.refresh_token)).status).toBe(400);
    for (const token of [tokens.access_token, tokens.refresh_token, fresh.access_token, fresh.refresh_token]) {
      expect(await (await introspect(token, [app.uid, secret!])).json()).toEqual({ active: false });
    }
  });
});
