import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { findUserById } from "../../src/db/users";
import { call, json, makeUserWithToken, unique } from "../helpers/fixtures";

async function admin() {
  return makeUserWithToken({ isAdmin: true });
}

function newUser(overrides: Record<string, unknown> = {}) {
  const username = unique("u");
  return { username, name: `New ${username}`, email: `${username}@example.org`, password: "a-long-enough-password", skip_confirmation: true, ...overrides };
}

describe("POST /api/v4/users: an administrator creates users", () => {
  it("creates a user (201) with GitLab's entity and no trace of the password", async () => {
    const { token } = await admin();
    const input = newUser();
    const res = await call("/api/v4/users", { ...json(input), token });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ username: input.username, name: input.name, email: input.email, state: "active", is_admin: false });
    expect(typeof body.id).toBe("number");
    expect(JSON.stringify(body)).not.toContain(input.password);
    // Stored as PBKDF2-SHA256 at the service's 100,000 iterations (src/crypto/password.ts; only
    // the fixtures' own users are hashed more cheaply).
    expect((await findUserById(getDb(env.DB), body.id as number))?.passwordHash).toMatch(/^pbkdf2-sha256\$100000\$[\w-]{22}\$[\w-]{43}$/);
  });

  it("accepts form-encoded parameters as GitLab's curl examples send them", async () => {
    const { token } = await admin();
    const input = newUser({ admin: "true", skip_confirmation: "true" });
    const res = await call("/api/v4/users", {
      method: "POST",
      token,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(input as unknown as Record<string, string>),
    });
    expect(res.status).toBe(201);
    expect((await res.json()) as Record<string, any>).toMatchObject({ username: input.username, is_admin: true });
  });

  it("refuses a duplicate username or email, case-insensitively, with 409", async () => {
    const { token } = await admin();
    const input = newUser();
    expect((await call("/api/v4/users", { ...json(input), token })).status).toBe(201);
    const dupName = await call("/api/v4/users", { ...json(newUser({ username: input.username.toUpperCase() })), token });
    expect(dupName.status).toBe(409);
    expect((await dupName.json()) as Record<string, any>).toEqual({ message: { username: ["has already been taken"] } });
    const dupEmail = await call("/api/v4/users", { ...json(newUser({ email: input.email.toUpperCase() })), token });
    expect(dupEmail.status).toBe(409);
    expect((await dupEmail.json()) as Record<string, any>).toEqual({ message: { email: ["has already been taken"] } });
  });

  it("of 10 concurrent creations of one username exactly one succeeds; the others get 409", async () => {
    const { token } = await admin();
    const input = newUser();
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call("/api/v4/users", { ...json({ ...input, email: `${i}${input.email}` }), token }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 201).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(9);
  });

  it("answers bad input with 400 and GitLab's body, never a 500", async () => {
    const { token } = await admin();
    const cases: [Record<string, unknown>, unknown][] = [
      [{ ...newUser(), username: undefined }, { error: "username is missing" }],
      [{ ...newUser(), email: "not-an-email" }, { error: "email is invalid" }],
      [{ ...newUser(), password: "short" }, { message: { password: ["is too short (minimum is 8 characters)"] } }],
      [{ ...newUser(), username: "-bad name-" }, { message: { username: ["is invalid"] } }],
      [{ ...newUser(), username: "users" }, { message: { username: ["users is a reserved name"] } }],
      [{ ...newUser(), admin: "maybe" }, { error: "admin is invalid" }],
    ];
    for (const [body, expected] of cases) {
      const res = await call("/api/v4/users", { ...json(body), token });
      expect(res.status).toBe(400);
      expect((await res.json()) as Record<string, any>).toEqual(expected);
    }
    const malformed = await call("/api/v4/users", { method: "POST", token, headers: { "Content-Type": "application/json" }, body: "{nope" });
    expect(malformed.status).toBe(400);
  });

  it("is for administrators only (403) and needs the api scope", async () => {
    const user = await makeUserWithToken();
    expect((await call("/api/v4/users", { ...json(newUser()), token: user.token })).status).toBe(403);
    const readOnlyAdmin = await makeUserWithToken({ isAdmin: true, scopes: ["read_api"] });
    expect((await call("/api/v4/users", { ...json(newUser()), token: readOnlyAdmin.token })).status).toBe(403);
    expect((await call("/api/v4/users", json(newUser()))).status).toBe(401);
  });
});

describe("GET /api/v4/users and /users/:id: listing, filtering and fields by role", () => {
  it("lists users with offset pagination headers", async () => {
    const { token } = await admin();
    for (let i = 0; i < 3; i++) await call("/api/v4/users", { ...json(newUser()), token });
    const res = await call("/api/v4/users?per_page=2&page=1", { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as unknown[];
    expect(body.length).toBe(2);
    expect(Number(res.headers.get("x-total"))).toBeGreaterThanOrEqual(4);
    expect(res.headers.get("x-next-page")).toBe("2");
    expect(res.headers.get("link")).toContain('rel="next"');
  });

  it("filters by username; non-administrators see only basic fields", async () => {
    const { token } = await admin();
    const input = newUser();
    await call("/api/v4/users", { ...json(input), token });
    const plain = await makeUserWithToken({ scopes: ["read_user"] });
    const res = await call(`/api/v4/users?username=${input.username.toUpperCase()}`, { token: plain.token });
    const body = (await res.json()) as Record<string, unknown>[];
    expect(body.length).toBe(1);
    expect(Object.keys(body[0]).sort()).toEqual(["avatar_url", "id", "locked", "name", "state", "username", "web_url"]);
  });

  it("shows one user: email only to administrators; 404 for an unknown id; 400 for a bad id", async () => {
    const { token } = await admin();
    const input = newUser();
    const created = (await (await call("/api/v4/users", { ...json(input), token })).json()) as { id: number };
    const asAdmin = (await (await call(`/api/v4/users/${created.id}`, { token })).json()) as Record<string, unknown>;
    expect(asAdmin).toMatchObject({ id: created.id, email: input.email, is_admin: false });
    const plain = await makeUserWithToken();
    const asUser = (await (await call(`/api/v4/users/${created.id}`, { token: plain.token })).json()) as Record<string, unknown>;
    expect(asUser).toMatchObject({ id: created.id, username: input.username });
    expect(asUser).not.toHaveProperty("email");
    const missing = await call("/api/v4/users/999999999", { token });
    expect(missing.status).toBe(404);
    expect((await missing.json()) as Record<string, any>).toEqual({ message: "404 User Not Found" });
    expect((await call("/api/v4/users/abc", { token })).status).toBe(400);
  });
});
