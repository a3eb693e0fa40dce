import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { addMember, createGroup } from "../../src/db/namespaces";
import { call, makeUser, pkceTokens, unique } from "../oauth/helpers";
import { oidcLogin } from "./helpers";

const userinfoGet = (token: string) => call("/oauth/userinfo", { headers: { Authorization: `Bearer ${token}` } });

describe("/oauth/userinfo (OIDC Core §5.3)", () => {
  it("§5.3.1: GET with a Bearer token holding openid returns sub and GitLab's profile claims; no email without scope email", async () => {
    const { user, tokens } = await oidcLogin("openid profile");
    const res = await userinfoGet(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ sub: String(user.id), name: user.name, nickname: user.username, preferred_username: user.username });
    expect(body).not.toHaveProperty("email");
    expect(body.groups).toEqual([]);
  });

  it("§5.3.1: POST works too, with the token in the header or in the form body (RFC 6750 §2.2); email with scope email", async () => {
    const { user, tokens } = await oidcLogin("openid email");
    const viaHeader = await call("/oauth/userinfo", { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(((await viaHeader.json()) as Record<string, unknown>).email).toBe(user.email);
    const viaBody = await call("/oauth/userinfo", {
      method: "POST",
      body: new URLSearchParams({ access_token: tokens.access_token }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(viaBody.status).toBe(200);
    expect((await viaBody.json()) as Record<string, unknown>).toMatchObject({ sub: String(user.id), email: user.email, email_verified: true });
  });

  it("GitLab: groups lists every group the user reaches (subgroups of memberships included); owner, maintainer and developer claims list direct memberships by role", async () => {
    const { user, tokens } = await oidcLogin("openid");
    const db = getDb(env.DB);
    const other = await makeUser();
    const owned = await createGroup(db, { name: "O", path: unique("o"), parent: null, visibility: "private", description: "", ownerId: user.id });
    const sub = await createGroup(db, { name: "S", path: "sub", parent: owned, visibility: "private", description: "", ownerId: other.id });
    const dev = await createGroup(db, { name: "D", path: unique("d"), parent: null, visibility: "private", description: "", ownerId: other.id });
    const maint = await createGroup(db, { name: "M", path: unique("m"), parent: null, visibility: "private", description: "", ownerId: other.id });
    await addMember(db, "group", dev.id, user.id, 30, null);
    await addMember(db, "group", maint.id, user.id, 40, null);
    const body = (await (await userinfoGet(tokens.access_token)).json()) as Record<string, string[]>;
    expect([...body.groups].sort()).toEqual([owned.fullPath, sub.fullPath, dev.fullPath, maint.fullPath].sort());
    expect(body["https://gitlab.org/claims/groups/owner"]).toEqual([owned.fullPath]);
    expect(body["https://gitlab.org/claims/groups/maintainer"]).toEqual([maint.fullPath]);
    expect(body["https://gitlab.org/claims/groups/developer"]).toEqual([dev.fullPath]);
  });

  it("RFC 6750 §3.1: a token without openid is 403 insufficient_scope; a bad or missing token is 401 invalid_token with WWW-Authenticate", async () => {
    const { tokens } = await pkceTokens();
    const noOpenid = await userinfoGet(tokens.access_token);
    expect(noOpenid.status).toBe(403);
    expect(((await noOpenid.json()) as { error: string }).error).toBe("insufficient_scope");
    expect(noOpenid.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    for (const res of [await userinfoGet("gloat-not-a-token"), await call("/oauth/userinfo")]) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_token");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
  });

  it("a revoked token is refused at once", async () => {
    const { app, tokens } = await oidcLogin("openid");
    const revoke = await call("/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: tokens.access_token, client_id: app.uid }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(revoke.status).toBe(200);
    expect((await userinfoGet(tokens.access_token)).status).toBe(401);
  });
});
