import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function createFor(adminToken: string, userId: number, overrides: Record<string, unknown> = {}) {
  return call(`/api/v4/users/${userId}/personal_access_tokens`, {
    ...json({ name: unique("tok"), scopes: ["read_user", "read_api"], expires_at: day(30), ...overrides }),
    token: adminToken,
  });
}

describe("POST /api/v4/users/:id/personal_access_tokens (spec Authentication: expiry mandatory)", () => {
  it("creates a token for a user (201): the token once, usable on /api/v4/user as PRIVATE-TOKEN", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const res = await createFor(admin.token, user.id);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ user_id: user.id, scopes: ["read_user", "read_api"], expires_at: day(30), revoked: false, active: true, last_used_at: null });
    expect(body.token).toMatch(/^glpat-/);
    const me = await call("/api/v4/user", { headers: { "PRIVATE-TOKEN": body.token as string } });
    expect(me.status).toBe(200);
    expect((await me.json()) as Record<string, any>).toMatchObject({ id: user.id });
    const stored = await env.DB.prepare("SELECT token_hash FROM personal_access_tokens WHERE id = ?").bind(body.id).first<{ token_hash: string }>();
    expect(stored!.token_hash).not.toBe(body.token);
  });

  it("requires expires_at, at most 365 days ahead and in the future; refuses unknown scopes", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const cases: [Record<string, unknown>, string][] = [
      [{ expires_at: undefined }, "expires_at"],
      [{ expires_at: day(366) }, "expires_at"],
      [{ expires_at: day(-1) }, "expires_at"],
      [{ expires_at: "2030-02-30" }, "expires_at"],
      [{ scopes: ["openid"] }, "scopes"],
      [{ scopes: [] }, "scopes"],
      [{ name: " " }, "name"],
    ];
    for (const [overrides, field] of cases) {
      const res = await createFor(admin.token, user.id, overrides);
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      const body = (await res.json()) as { message: Record<string, string[]> };
      expect(Object.keys(body.message)).toEqual([field]);
    }
    expect((await createFor(admin.token, user.id, { expires_at: day(365) })).status).toBe(201);
  });

  it("is for administrators only; 404 for an unknown user", async () => {
    const plain = await makeUserWithToken();
    expect((await createFor(plain.token, plain.user.id)).status).toBe(403);
    const admin = await makeUserWithToken({ isAdmin: true });
    const res = await createFor(admin.token, 999999999);
    expect(res.status).toBe(404);
  });
});

describe("GET and DELETE /api/v4/personal_access_tokens (GitLab's personal access tokens API)", () => {
  it("lists the caller's own tokens; administrators all, filtered by user_id", async () => {
    const a = await makeUserWithToken();
    const b = await makeUserWithToken();
    await makePat(a.user.id, ["read_api"]);
    const own = (await (await call("/api/v4/personal_access_tokens", { token: a.token })).json()) as { user_id: number }[];
    expect(own.length).toBe(2);
    expect(own.every((t) => t.user_id === a.user.id)).toBe(true);
    expect((await call(`/api/v4/personal_access_tokens?user_id=${b.user.id}`, { token: a.token })).status).toBe(401);
    const admin = await makeUserWithToken({ isAdmin: true });
    const res = await call(`/api/v4/personal_access_tokens?user_id=${b.user.id}`, { token: admin.token });
    const forB = (await res.json()) as { user_id: number }[];
    expect(forB.length).toBe(1);
    expect(forB[0].user_id).toBe(b.user.id);
    expect(res.headers.get("x-total")).toBe("1");
    expect(JSON.stringify(forB)).not.toContain("glpat-");
  });

  it("shows one token to its owner or an administrator, 404 to others; /self is the token in use", async () => {
    const a = await makeUserWithToken();
    const b = await makeUserWithToken();
    const [mine] = (await (await call("/api/v4/personal_access_tokens", { token: a.token })).json()) as { id: number }[];
    expect((await call(`/api/v4/personal_access_tokens/${mine.id}`, { token: a.token })).status).toBe(200);
    expect((await call(`/api/v4/personal_access_tokens/${mine.id}`, { token: b.token })).status).toBe(404);
    const self = await call("/api/v4/personal_access_tokens/self", { token: a.token });
    expect((await self.json()) as Record<string, any>).toMatchObject({ id: mine.id, user_id: a.user.id });
  });

  it("revokes a token (204): it fails at once; revoking again is 400; another user's is 404", async () => {
    const a = await makeUserWithToken();
    const victim = await makePat(a.user.id, ["read_user"]);
    const list = (await (await call("/api/v4/personal_access_tokens?state=active", { token: a.token })).json()) as { id: number; scopes: string[] }[];
    const target = list.find((t) => t.scopes.includes("read_user") && t.scopes.length === 1)!;
    const b = await makeUserWithToken();
    expect((await call(`/api/v4/personal_access_tokens/${target.id}`, { method: "DELETE", token: b.token })).status).toBe(404);
    expect((await call("/api/v4/user", { token: victim })).status).toBe(200);
    expect((await call(`/api/v4/personal_access_tokens/${target.id}`, { method: "DELETE", token: a.token })).status).toBe(204);
    const after = await call("/api/v4/user", { token: victim });
    expect(after.status).toBe(401);
    expect((await after.json()) as Record<string, any>).toMatchObject({ error: "invalid_token" });
    expect((await call(`/api/v4/personal_access_tokens/${target.id}`, { method: "DELETE", token: a.token })).status).toBe(400);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'personal_access_token_revoked' AND entity_id = ?").bind(String(target.id)).first<{ n: number }>();
    expect(audit!.n).toBe(1);
  });

  it("answers bad ids and filters with 400", async () => {
    const a = await makeUserWithToken();
    expect((await call("/api/v4/personal_access_tokens/abc", { token: a.token })).status).toBe(400);
    const bad = await call("/api/v4/personal_access_tokens?state=sideways", { token: a.token });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "state does not have a valid value" });
  });

  it("filters by state, revoked and search, and paginates with X-Total (in SQL)", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const a = await makeUserWithToken();
    await makePat(a.user.id, ["read_user"], day(-1)); // expired yesterday
    const revoked = (await (await createFor(admin.token, a.user.id, { name: "Revoked-One" })).json()) as { id: number };
    expect((await call(`/api/v4/personal_access_tokens/${revoked.id}`, { method: "DELETE", token: a.token })).status).toBe(204);
    const list = async (q: string) => {
      const res = await call(`/api/v4/personal_access_tokens?${q}`, { token: a.token });
      return { total: res.headers.get("X-Total"), body: (await res.json()) as { id: number; name: string; active: boolean; revoked: boolean }[] };
    };
    const inactive = await list("state=inactive");
    expect(inactive.total).toBe("2");
    expect(inactive.body.every((t) => !t.active)).toBe(true);
    expect((await list("state=active")).body.map((t) => t.active)).toEqual([true]);
    expect((await list("revoked=true")).body.map((t) => t.id)).toEqual([revoked.id]);
    expect((await list("search=revoked-o")).body.map((t) => t.id)).toEqual([revoked.id]);
    const paged = await list("per_page=1&page=2");
    expect(paged.total).toBe("3");
    expect(paged.body).toHaveLength(1);
  });
});
