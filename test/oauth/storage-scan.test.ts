import { create } from "@bufbuild/protobuf";
import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenFamily } from "../../src/durable/token-family";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { signedInUser } from "../helpers/browser";
import { call, callFrom, makeUserWithToken, unique } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";
import { enc, header, pluginClient } from "../plugin/client";
import { REDIRECT, TEST_PASSWORD, getCode, makeApp, makeUser, pkceTokens, refresh, tokenRequest, type Tokens } from "./helpers";

/** Every value in every D1 table, as one string. */
async function dumpD1(): Promise<string> {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{ name: string }>();
  expect(results.length).toBeGreaterThan(3);
  const parts: string[] = [];
  for (const { name } of results) {
    const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
    parts.push(JSON.stringify(rows.results));
  }
  return parts.join("\n");
}

/** The TokenFamily objects that exist now (their ids as strings). */
async function familyIds(): Promise<Set<string>> {
  return new Set((await listDurableObjectIds(env.TOKEN_FAMILY)).map((id) => id.toString()));
}

/**
 * Every key and value of every TokenFamily object's storage but those in `before`, as one string.
 * Every family a flow starts is a new object; the families other files of the lane left behind
 * (thousands, from the 1,000-grant files) hold none of this test's secrets and made the scan's
 * time depend on what ran before it.
 */
async function dumpFamilies(before: Set<string>): Promise<string> {
  const ids = (await listDurableObjectIds(env.TOKEN_FAMILY)).filter((id) => !before.has(id.toString()));
  expect(ids.length).toBeGreaterThan(0);
  const parts: string[] = [];
  for (const id of ids) {
    const stub = env.TOKEN_FAMILY.get(id) as DurableObjectStub<TokenFamily>;
    parts.push(await runInDurableObject(stub, async (_o: TokenFamily, state) => JSON.stringify([...state.storage.kv.list()])));
  }
  return parts.join("\n");
}

/**
 * Every key and value of every object of a Durable Object namespace: its key-value storage and the
 * rows of every SQL table it made (PluginTopic keeps its sequence in SQL).
 */
async function dumpObjects(ns: DurableObjectNamespace): Promise<string> {
  const ids = await listDurableObjectIds(ns);
  expect(ids.length).toBeGreaterThan(0);
  const parts: string[] = [];
  for (const id of ids) {
    parts.push(
      await runInDurableObject(ns.get(id), async (_o: unknown, state) => {
        const out: unknown[] = [[...state.storage.kv.list()]];
        const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").toArray();
        for (const { name } of tables) out.push(state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray());
        return JSON.stringify(out);
      }),
    );
  }
  return parts.join("\n");
}

/** Every object of the files bucket: key, metadata, and the bytes of objects up to 1 MiB as text. */
async function dumpR2(): Promise<string> {
  const parts: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ cursor, include: ["customMetadata", "httpMetadata"] });
    for (const o of page.objects) {
      parts.push(JSON.stringify({ key: o.key, custom: o.customMetadata, http: o.httpMetadata }));
      if (o.size <= 1024 * 1024) parts.push(await (await env.FILES.get(o.key))!.text());
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  expect(parts.length).toBeGreaterThan(0);
  return parts.join("\n");
}

function expectAbsent(storage: string, secrets: string[]) {
  for (const s of secrets) {
    expect(storage.includes(s), "a plaintext secret was found in storage").toBe(false);
    // Nor the random part alone (the visible prefix in front of it is not secret).
    const random = s.split(/[.-]/).pop()!;
    if (random.length >= 20) expect(storage.includes(random), "the random part of a secret was found in storage").toBe(false);
  }
}

describe("DESIGN convention 6: the personal-access-token and throttle objects, Plugin topics and R2 hold no plaintext secret", () => {
  it("after creating, using and revoking personal access tokens, failing with wrong tokens and secrets, publishing to a topic and uploading files", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const owner = await makeUserWithToken();
    const secrets = [admin.token, owner.token];
    // A personal access token made through the API, used (its object caches its state) and revoked.
    const made = await call(`/api/v4/users/${owner.user.id}/personal_access_tokens`, {
      method: "POST",
      body: JSON.stringify({ name: unique("pat"), scopes: ["api"], expires_at: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10) }),
      headers: { "Content-Type": "application/json" },
      token: admin.token,
    });
    expect(made.status).toBe(201);
    const pat = (await made.json()) as { id: number; token: string };
    secrets.push(pat.token);
    expect((await call("/api/v4/user", { token: pat.token })).status).toBe(200);
    expect((await call(`/api/v4/personal_access_tokens/${pat.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);
    expect((await call("/api/v4/user", { token: pat.token })).status).toBe(401);
    // Failed credentials count in the throttle objects, keyed by address, never by the value tried.
    const wrongPat = `glpat-${unique("x")}${crypto.randomUUID().replaceAll("-", "")}`;
    const wrongSecret = `gloas-${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "")}`;
    const wrongPassword = `wrong ${crypto.randomUUID()}`;
    secrets.push(wrongPat, wrongSecret, wrongPassword);
    const from = callFrom("198.51.100.91");
    for (let i = 0; i < 3; i++) expect((await from("/api/v4/user", { token: wrongPat })).status).toBe(401);
    const { app } = await makeApp();
    const bad = await from("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: owner.user.username, password: TEST_PASSWORD, client_id: app.uid, client_secret: wrongSecret }) });
    expect(bad.status).toBe(401);
    expect((await from("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: owner.user.username, password: wrongPassword }) })).status).toBe(400);
    // A topic publish and a SendFile authenticated by the owner's token; a generic package upload.
    const client = pluginClient("connect", owner.token);
    const topic = unique("topic");
    const pub = await client.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: "hello" })) });
    expect(pub.Code).toBe(0);
    const data = enc("plain file contents");
    async function* parts() {
      yield create(FileStreamSchema, { Header: header(), Name: "notes.txt", Purpose: "", TotalSize: BigInt(data.byteLength), TotalPart: 1n, Part: 1n, Data: data });
    }
    expect((await client.sendFile(parts())).Code).toBe(0);
    const project = await makeProject(owner.user.id);
    const put = await call(`/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`, { method: "PUT", body: "binary", token: owner.token });
    expect(put.status).toBe(201);

    expectAbsent(await dumpObjects(env.PERSONAL_ACCESS_TOKEN), secrets);
    expectAbsent(await dumpObjects(env.FAILURE_COUNTER), secrets);
    expectAbsent(await dumpObjects(env.PLUGIN_TOPIC), secrets);
    expectAbsent(await dumpR2(), secrets);
    expectAbsent(await dumpD1(), secrets);
  });
});

describe("DESIGN convention 6: storage holds only SHA-256 hashes of tokens, codes and client secrets", () => {
  it("after code (PKCE and secret), refresh, grace replay and password flows, no plaintext token, code or secret is in D1 or in TokenFamily storage", async () => {
    const secrets: string[] = [];
    const before = await familyIds();
    // PKCE flow, two rotations and a grace replay (the sealed pair is in storage then).
    const pk = await pkceTokens();
    secrets.push(pk.tokens.access_token, pk.tokens.refresh_token, pk.secret);
    const r1 = (await (await refresh(pk.app, pk.tokens.refresh_token)).json()) as Tokens;
    const r1again = (await (await refresh(pk.app, pk.tokens.refresh_token)).json()) as Tokens;
    expect(r1again.refresh_token).toBe(r1.refresh_token);
    secrets.push(r1.access_token, r1.refresh_token);
    // Confidential flow: code and client secret.
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid });
    const t = (await (await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })).json()) as Tokens;
    secrets.push(code, secret, t.access_token, t.refresh_token);
    // Password grant.
    const user = await makeUser();
    const pw = (await (await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD })).json()) as Tokens;
    secrets.push(pw.access_token, TEST_PASSWORD);

    const storage = (await dumpD1()) + "\n" + (await dumpFamilies(before));
    for (const s of secrets) {
      expect(storage.includes(s), "a plaintext secret was found in storage").toBe(false);
      // Nor the random part alone (the visible ids in front of it are not secret).
      const random = s.split(".").pop()!;
      if (random.length >= 40) expect(storage.includes(random)).toBe(false);
    }
  });
});
