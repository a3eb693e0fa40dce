import { Code, ConnectError } from "@connectrpc/connect";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { revokePersonalAccessToken } from "../../src/credentials/personal-access-token";
import { findPersonalAccessToken } from "../../src/db/personal-access-tokens";
import { insertPlugin } from "../../src/db/plugins";
import { makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { asJson, dec, enc, header, pluginClient, PROTOCOLS } from "./client";

const codeOf = (e: unknown) => ConnectError.from(e).code;

describe("Header rules (DESIGN, Plugin RPC protocol: Header)", () => {
  it("a missing Header or UUID is Connect invalid_argument on every protocol", async () => {
    const { token } = await makeUserWithToken();
    for (const protocol of PROTOCOLS) {
      const client = pluginClient(protocol, token);
      expect(codeOf(await client.call({}).catch((e) => e))).toBe(Code.InvalidArgument);
      const err = await client.call({ Header: header({ UUID: "" }) }).catch((e) => e);
      expect(codeOf(err)).toBe(Code.InvalidArgument);
      expect(ConnectError.from(err).rawMessage).toContain("UUID");
    }
  });

  it("a UUID that is not a UUID is invalid_argument", async () => {
    const { token } = await makeUserWithToken();
    const err = await pluginClient("connect", token).call({ Header: header({ UUID: "12345" }) }).catch((e) => e);
    expect(codeOf(err)).toBe(Code.InvalidArgument);
  });

  it("Timestamp more than 5 minutes off the server clock is refused, either way; within is accepted", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const now = Date.now();
    for (const off of [-5 * 60_000 - 5_000, 5 * 60_000 + 5_000]) {
      const err = await client.call({ Header: header({ Timestamp: BigInt(now + off) }) }).catch((e) => e);
      expect(codeOf(err)).toBe(Code.InvalidArgument);
      expect(ConnectError.from(err).rawMessage).toContain("Timestamp");
    }
    expect(codeOf(await client.call({ Header: header({ Timestamp: 0n }) }).catch((e) => e))).toBe(Code.InvalidArgument);
    const ok = await client.call({ Header: header({ Timestamp: BigInt(now - 4 * 60_000) }) });
    expect(ok.Code).toBe(0);
  });

  it("From must be one of the caller's registered plugins; empty From is a plain user", async () => {
    const { user, token } = await makeUserWithToken();
    const other = await makeUser();
    const mine = unique("mine-");
    const theirs = unique("theirs-");
    await insertPlugin(getDb(env.DB), { name: mine, ownerId: user.id, endpoint: "", description: "" });
    await insertPlugin(getDb(env.DB), { name: theirs, ownerId: other.id, endpoint: "", description: "" });
    const client = pluginClient("grpc-web", token);
    const ok = await client.call({ Header: header({ From: mine }) });
    expect(ok.Code).toBe(0);
    expect(ok.Header?.To).toBe(mine);
    for (const from of [theirs, "core", unique("unregistered-")]) {
      const err = await client.call({ Header: header({ From: from }) }).catch((e) => e);
      expect(codeOf(err)).toBe(Code.PermissionDenied);
    }
    expect((await client.call({ Header: header({ From: "" }) })).Code).toBe(0);
  });

  it("Res.Header swaps From and To and echoes UUID and Func for a named To", async () => {
    const { user, token } = await makeUserWithToken();
    const mine = unique("swap-");
    await insertPlugin(getDb(env.DB), { name: mine, ownerId: user.id, endpoint: "", description: "" });
    const h = header({ From: mine, To: "core", Func: "whoami" });
    const res = await pluginClient("connect-json", token).call({ Header: h });
    expect(res.Header).toMatchObject({ UUID: h.UUID, Func: "whoami", From: "core", To: mine });
  });
});

describe("Idempotency of Call (DESIGN: UUID is the idempotency key, same caller, 10 minutes)", () => {
  it("a repeated UUID returns the stored result without running the function again", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const topic = unique("idem-");
    const h = header({ Func: "topic.publish" });
    const data = enc(JSON.stringify({ topic, message: "once" }));
    const first = await client.call({ Header: h, Data: data });
    expect(first.Code).toBe(0);
    expect(asJson(first.Data).seq).toBe(1);
    // The record is written just after the reply: a retry that races it is told Code 10 (retry).
    let again = await client.call({ Header: header({ UUID: h.UUID, Func: "topic.publish" }), Data: data });
    for (let i = 0; again.Code === 10 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await client.call({ Header: header({ UUID: h.UUID, Func: "topic.publish" }), Data: data });
    }
    expect(again).toEqual(first);
    // A new UUID runs the function: the topic's sequence moved by one only.
    const next = await client.call({ Header: header({ Func: "topic.publish" }), Data: data });
    expect(asJson(next.Data).seq).toBe(2);
  });

  it("concurrent calls with one UUID run the function once", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const topic = unique("conc-");
    const uuid = crypto.randomUUID();
    const data = enc(JSON.stringify({ topic, message: "m" }));
    const results = await Promise.all(Array.from({ length: 5 }, () => client.call({ Header: header({ UUID: uuid, Func: "topic.publish" }), Data: data })));
    const ok = results.filter((r) => r.Code === 0);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([0, 10]).toContain(r.Code);
    expect(new Set(ok.map((r) => asJson(r.Data).seq))).toEqual(new Set([1]));
  });

  it("the same UUID from another caller is a separate call", async () => {
    const a = await makeUserWithToken();
    const b = await makeUserWithToken();
    const uuid = crypto.randomUUID();
    const topic = unique("sep-");
    const data = enc(JSON.stringify({ topic, message: "m" }));
    const ra = await pluginClient("connect", a.token).call({ Header: header({ UUID: uuid, Func: "topic.publish" }), Data: data });
    const rb = await pluginClient("connect", b.token).call({ Header: header({ UUID: uuid, Func: "topic.publish" }), Data: data });
    expect([asJson(ra.Data).seq, asJson(rb.Data).seq]).toEqual([1, 2]);
  });

  it("the same UUID with a different request is Code 3", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const uuid = crypto.randomUUID();
    const topic = unique("diff-");
    await client.call({ Header: header({ UUID: uuid, Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: "a" })) });
    const res = await client.call({ Header: header({ UUID: uuid, Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: "b" })) });
    expect(res.Code).toBe(3);
    expect(res.Desc).toContain("UUID");
    expect(dec(res.Data)).toBe("");
  });

  it("safe core functions (ping, whoami, deprecations.list, files.get) are not recorded: a repeat runs again", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const uuid = crypto.randomUUID();
    const first = await client.call({ Header: header({ UUID: uuid }), Data: enc("a") });
    const second = await client.call({ Header: header({ UUID: uuid }), Data: enc("b") });
    expect([dec(first.Data), dec(second.Data)]).toEqual(["a", "b"]);
  });
});

describe("Revocation: revoked tokens are refused at once", () => {
  it("a token revoked between two calls is refused on the next call", async () => {
    const { user, token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    expect((await client.call({ Header: header() })).Code).toBe(0);
    const found = await findPersonalAccessToken(getDb(env.DB), token);
    await revokePersonalAccessToken(env, found!.pat.id, user.id);
    const err = await client.call({ Header: header() }).catch((e) => e);
    expect(codeOf(err)).toBe(Code.Unauthenticated);
  });
});
