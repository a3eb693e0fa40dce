import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import type { Res } from "../../src/gen/proto/plugin_pb";
import { insertPlugin } from "../../src/db/plugins";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { asJson, dec, enc, header, pluginClient, PROTOCOLS } from "./client";

/** Starts a subscription and resolves once the topic object confirmed it (first message). */
async function subscribe(protocol: (typeof PROTOCOLS)[number], token: string, topic: string, limit: number) {
  const ac = new AbortController();
  const it = pluginClient(protocol, token)
    .chat({ Header: header({ Func: "topic.subscribe" }), Data: enc(JSON.stringify({ topic, limit })) }, { signal: ac.signal })
    [Symbol.asyncIterator]();
  const first = await it.next();
  expect(first.done).toBe(false);
  expect(first.value.Desc).toBe(`subscribed to ${topic}`);
  const received: { res: Res; at: number }[] = [];
  const done = (async () => {
    for (;;) {
      const r = await it.next();
      if (r.done) return received;
      received.push({ res: r.value, at: Date.now() });
    }
  })();
  return { done, received, abort: () => ac.abort() };
}

describe("Chat over each protocol (spec Plugin RPC operations: server streaming)", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: topic.subscribe streams each published message, in order, as it is published`, async () => {
      const { token } = await makeUserWithToken();
      const topic = unique("t-");
      const sub = await subscribe(protocol, token, topic, 3);
      const publisher = pluginClient("connect", token);
      for (const m of ["one", "two", "three"]) {
        const pub = await publisher.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: m })) });
        expect(pub.Code).toBe(0);
        // Arrival before the next publish: the stream is not buffered to the end.
        await expect.poll(() => sub.received.length).toBe(["one", "two", "three"].indexOf(m) + 1);
      }
      const got = await sub.done;
      expect(got.map((g) => dec(g.res.Data))).toEqual(["one", "two", "three"]);
      expect(got.map((g) => JSON.parse(g.res.Desc).seq)).toEqual([1, 2, 3]);
      for (const g of got) expect(g.res.Header).toMatchObject({ Func: "topic.subscribe", From: "core" });
    });
  }

  it("a topic fans out to several subscribers on different protocols, each in publish order", async () => {
    const { token } = await makeUserWithToken();
    const topic = unique("fan-");
    const subs = await Promise.all(PROTOCOLS.flatMap((p) => [subscribe(p, token, topic, 10), subscribe(p, token, topic, 10)]));
    const publisher = pluginClient("grpc-web", token);
    const messages = Array.from({ length: 10 }, (_, i) => `m${i}`);
    // Published concurrently: the topic object serialises them; every subscriber sees one order.
    const pubs = await Promise.all(messages.map((message) => publisher.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message })) })));
    for (const p of pubs) expect(asJson(p.Data).delivered).toBe(subs.length);
    const orders = await Promise.all(subs.map((s) => s.done.then((got) => got.map((g) => dec(g.res.Data)))));
    const seqOrder = [...pubs].sort((a, b) => asJson(a.Data).seq - asJson(b.Data).seq).map((p) => messages[pubs.indexOf(p)]);
    for (const order of orders) expect(order).toEqual(seqOrder);
  });

  it("a subscriber that goes away is dropped and the others keep receiving", async () => {
    const { token } = await makeUserWithToken();
    const topic = unique("drop-");
    const leaving = await subscribe("connect", token, topic, 100);
    const staying = await subscribe("connect", token, topic, 2);
    leaving.abort();
    await leaving.done.catch(() => {});
    const client = pluginClient("connect", token);
    for (const message of ["a", "b"]) await client.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message })) });
    expect((await staying.done).map((g) => dec(g.res.Data))).toEqual(["a", "b"]);
  });

  it("bad Chat input ends the stream with one Res of Code 3; unknown Func Code 12; Call function Code 12", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect-json", token);
    const collect = async (func: string, data: string) => {
      const out: Res[] = [];
      for await (const r of client.chat({ Header: header({ Func: func }), Data: enc(data) })) out.push(r);
      return out.map((r) => r.Code);
    };
    expect(await collect("topic.subscribe", '{"topic":"bad topic!"}')).toEqual([3]);
    expect(await collect("topic.subscribe", "[]")).toEqual([3]);
    expect(await collect("nope", "")).toEqual([12]);
    expect(await collect("ping", "")).toEqual([12]);
  });
});

describe("Routing to an external plugin (DESIGN: the service is a gateway)", () => {
  async function registered() {
    const { user, token } = await makeUserWithToken();
    const name = unique("echo-");
    await insertPlugin(getDb(env.DB), { name, ownerId: user.id, endpoint: "service:ECHO_PLUGIN", description: "" });
    return { user, token, name };
  }

  for (const protocol of PROTOCOLS) {
    it(`${protocol}: Call is forwarded and the reply follows the Header rules; the token is not forwarded`, async () => {
      const { user, token, name } = await registered();
      const h = header({ To: name, Func: "echo" });
      const res = await pluginClient(protocol, token).call({ Header: h, Data: enc("hi there") });
      expect(res.Code).toBe(0);
      expect(asJson(res.Data)).toEqual({ echo: "hi there", func: "echo", caller: user.username, authorization: null });
      expect(res.Header).toMatchObject({ UUID: h.UUID, Func: "echo", From: name, To: "" });
    });
  }

  it("a plugin's Connect error becomes a Res with its code", async () => {
    const { token, name } = await registered();
    const res = await pluginClient("connect", token).call({ Header: header({ To: name, Func: "fail" }) });
    expect(res.Code).toBe(9);
    expect(res.Desc).toContain("the echo plugin refuses");
  });

  it("a plugin whose endpoint is not bound is Code 14, and a later retry with the same UUID runs again", async () => {
    const { user, token } = await makeUserWithToken();
    const name = unique("gone-");
    await insertPlugin(getDb(env.DB), { name, ownerId: user.id, endpoint: "service:NOT_BOUND", description: "" });
    const h = header({ To: name, Func: "echo" });
    const res = await pluginClient("connect", token).call({ Header: h });
    expect(res.Code).toBe(14);
    const again = await pluginClient("connect", token).call({ Header: h });
    expect(again.Code).toBe(14);
  });

  for (const protocol of PROTOCOLS) {
    it(`${protocol}: Chat streams the plugin's messages through one by one`, async () => {
      const { token, name } = await registered();
      const arrivals: { i: number; sentAt: number; at: number; desc: string }[] = [];
      for await (const r of pluginClient(protocol, token).chat({ Header: header({ To: name, Func: "count" }), Data: enc('{"count":4,"gap_ms":150}') })) {
        expect(r.Code).toBe(0);
        expect(r.Header?.From).toBe(name);
        const body = asJson(r.Data);
        arrivals.push({ i: body.i, sentAt: body.sent_at, at: Date.now(), desc: r.Desc });
      }
      expect(arrivals.map((a) => a.i)).toEqual([1, 2, 3, 4]);
      expect(arrivals.map((a) => a.desc)).toEqual(["message 1", "message 2", "message 3", "message 4"]);
      // Passed through as sent: each arrives before the plugin sends the next (150 ms later).
      for (let k = 1; k < arrivals.length; k++) expect(arrivals[k].at - arrivals[k - 1].at).toBeGreaterThanOrEqual(100);
    });
  }
});
