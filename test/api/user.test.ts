import { describe, expect, it } from "vitest";
import { call, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";

describe("GET /api/v4/user (spec GET /api/v4/user: GitLab's field set)", () => {
  it("returns the token's user with GitLab's fields; is_admin only for administrators", async () => {
    const { user, token } = await makeUserWithToken();
    const res = await call("/api/v4/user", { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    for (const field of ["id", "username", "name", "state", "avatar_url", "web_url", "created_at", "bio", "location", "public_email", "email", "two_factor_enabled", "last_sign_in_at", "locked", "identities", "can_create_group"]) {
      expect(body).toHaveProperty(field);
    }
    expect(body).toMatchObject({ id: user.id, username: user.username, email: user.email, state: "active", two_factor_enabled: false, web_url: `http://localhost/${user.username}` });
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body).not.toHaveProperty("is_admin");
    expect(JSON.stringify(body)).not.toContain("pbkdf2");

    const admin = await makeUserWithToken({ isAdmin: true });
    const adminBody = (await (await call("/api/v4/user", { token: admin.token })).json()) as Record<string, unknown>;
    expect(adminBody.is_admin).toBe(true);
  });

  it("accepts the scopes api, read_api and read_user as a PRIVATE-TOKEN header or Bearer", async () => {
    const user = await makeUser();
    for (const scope of ["api", "read_api", "read_user"]) {
      const token = await makePat(user.id, [scope]);
      expect((await call("/api/v4/user", { token })).status).toBe(200);
      expect((await call("/api/v4/user", { headers: { "PRIVATE-TOKEN": token } })).status).toBe(200);
    }
  });

  it("refuses other scopes with 403 insufficient_scope", async () => {
    const user = await makeUser();
    const token = await makePat(user.id, ["read_repository"]);
    const res = await call("/api/v4/user", { token });
    expect(res.status).toBe(403);
    expect((await res.json()) as Record<string, any>).toMatchObject({ error: "insufficient_scope", scope: "api read_api read_user" });
  });

  it("answers 401 without a token and with an unknown one", async () => {
    expect((await call("/api/v4/user")).status).toBe(401);
    const res = await call("/api/v4/user", { token: "glpat-unknown" });
    expect(res.status).toBe(401);
    expect((await res.json()) as Record<string, any>).toEqual({ message: "401 Unauthorized" });
  });

  it("refuses an expired personal access token (expiry always enforced)", async () => {
    const user = await makeUser();
    const token = await makePat(user.id, ["api"], "2021-01-01");
    const res = await call("/api/v4/user", { token });
    expect(res.status).toBe(401);
    expect((await res.json()) as Record<string, any>).toMatchObject({ error: "invalid_token" });
  });
});
