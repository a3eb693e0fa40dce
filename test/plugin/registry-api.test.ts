import { describe, expect, it } from "vitest";
import { call, json, makeUserWithToken, unique } from "../helpers/fixtures";
import { header, pluginClient } from "./client";

const register = (token: string, body: Record<string, unknown>) => call("/api/v4/plugins", { ...json(body), token });

describe("POST /api/v4/plugins: register plugins, owner or admin", () => {
  it("registers a plugin owned by the caller, usable at once as Header.From", async () => {
    const { user, token } = await makeUserWithToken();
    const name = unique("reg-");
    const res = await register(token, { name, endpoint: "service:ECHO_PLUGIN", description: "echo" });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name, owner_id: user.id, endpoint: "service:ECHO_PLUGIN", description: "echo" });
    const rpc = await pluginClient("connect", token).call({ Header: header({ From: name }) });
    expect(rpc.Header?.To).toBe(name);
  });

  it("a taken name is 409; core and bad names are 400; bad endpoints are 400", async () => {
    const { token } = await makeUserWithToken();
    const name = unique("dup-");
    expect((await register(token, { name })).status).toBe(201);
    expect((await register(token, { name })).status).toBe(409);
    expect((await register(token, { name: "core" })).status).toBe(400);
    expect((await register(token, { name: "Has Spaces" })).status).toBe(400);
    for (const endpoint of ["ftp://x", "http://example.com/plugin", "service:lower", "not a url"]) {
      const res = await register(token, { name: unique("ep-"), endpoint });
      expect(res.status, endpoint).toBe(400);
      expect(JSON.stringify(await res.json())).toContain("endpoint");
    }
    expect((await register(token, { name: unique("ok-"), endpoint: "https://plugins.example/x" })).status).toBe(201);
    expect((await register(token, { name: unique("ok-"), endpoint: "http://127.0.0.1:9000" })).status).toBe(201);
  });

  it("a missing name is GitLab's 400 {error: 'name is missing'}", async () => {
    const { token } = await makeUserWithToken();
    const res = await register(token, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "name is missing" });
  });

  it("only an administrator may register for another user", async () => {
    const { token } = await makeUserWithToken();
    const other = await makeUserWithToken();
    const admin = await makeUserWithToken({ isAdmin: true });
    expect((await register(token, { name: unique("x-"), owner_id: other.user.id })).status).toBe(403);
    const res = await register(admin.token, { name: unique("x-"), owner_id: other.user.id });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { owner_id: number }).owner_id).toBe(other.user.id);
  });

  it("requires a token with scope api: 401 without, 403 with read_api", async () => {
    expect((await call("/api/v4/plugins", json({ name: unique("n-") }))).status).toBe(401);
    const { token } = await makeUserWithToken({ scopes: ["read_api"] });
    expect((await register(token, { name: unique("n-") })).status).toBe(403);
  });
});

describe("GET /api/v4/plugins", () => {
  it("lists the caller's plugins with pagination headers; an administrator sees every plugin", async () => {
    const a = await makeUserWithToken();
    const b = await makeUserWithToken();
    const admin = await makeUserWithToken({ isAdmin: true });
    const names = [unique("a1-"), unique("a2-"), unique("a3-")];
    for (const name of names) await register(a.token, { name });
    const bName = unique("b1-");
    await register(b.token, { name: bName });
    const res = await call("/api/v4/plugins?per_page=2", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBe("3");
    expect(res.headers.get("X-Next-Page")).toBe("2");
    expect(((await res.json()) as { name: string }[]).map((p) => p.name)).toEqual(names.slice(0, 2));
    const all = (await (await call("/api/v4/plugins?per_page=100", { token: admin.token })).json()) as { name: string }[];
    expect(all.map((p) => p.name)).toEqual(expect.arrayContaining([...names, bName]));
    expect((await call(`/api/v4/plugins?owner_id=${b.user.id}`, { token: a.token })).status).toBe(403);
    const ofB = (await (await call(`/api/v4/plugins?owner_id=${b.user.id}`, { token: admin.token })).json()) as { name: string }[];
    expect(ofB.map((p) => p.name)).toEqual([bName]);
  });
});
