import { beforeAll, describe, expect, inject, it } from "vitest";
import { dec, enc, header, pluginClient, PROTOCOLS, rootToken } from "./plugin-helpers";

const baseURL = inject("baseURL");
let token = "";

beforeAll(async () => {
  token = await rootToken(baseURL, inject("rootPassword"));
});

describe("Call and Chat end to end with @connectrpc/connect-node (spec Plugin RPC operations)", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: Call core ping and whoami`, async () => {
      const client = pluginClient(protocol, baseURL, token);
      const h = header({ Func: "ping" });
      const res = await client.call({ Header: h, Data: enc("over the wire") });
      expect(res.Code).toBe(0);
      expect(dec(res.Data)).toBe("over the wire");
      expect(res.Header).toMatchObject({ UUID: h.UUID, Func: "ping", From: "core" });
      const me = await client.call({ Header: header({ Func: "whoami" }) });
      expect(JSON.parse(dec(me.Data)).username).toBe("root");
    });

    it(`${protocol}: a Chat stream's messages arrive one by one while publishing is spaced out`, async () => {
      const client = pluginClient(protocol, baseURL, token);
      const topic = `e2e-${protocol}-${Date.now()}`;
      const count = 4;
      const gapMs = 400;
      const it = client.chat({ Header: header({ Func: "topic.subscribe" }), Data: enc(JSON.stringify({ topic, limit: count })) })[Symbol.asyncIterator]();
      const first = await it.next();
      expect(first.value?.Desc).toBe(`subscribed to ${topic}`);
      const arrivals: { text: string; at: number }[] = [];
      const reading = (async () => {
        for (;;) {
          const r = await it.next();
          if (r.done) return;
          arrivals.push({ text: dec(r.value.Data), at: Date.now() });
        }
      })();
      const publisher = pluginClient("connect", baseURL, token);
      const publishedAt: number[] = [];
      for (let i = 1; i <= count; i++) {
        if (i > 1) await new Promise((r) => setTimeout(r, gapMs));
        publishedAt.push(Date.now());
        const pub = await publisher.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: `m${i}` })) });
        expect(pub.Code).toBe(0);
      }
      await reading;
      expect(arrivals.map((a) => a.text)).toEqual(["m1", "m2", "m3", "m4"]);
      // Each message arrives soon after it was published, not all at the end of the stream.
      for (let i = 1; i < count; i++) expect(arrivals[i].at - arrivals[i - 1].at).toBeGreaterThanOrEqual(gapMs / 2);
      expect(arrivals[0].at).toBeLessThan(publishedAt[count - 1]);
    });
  }

  it("plain gRPC is refused with a message naming the supported protocols", async () => {
    const res = await fetch(`${baseURL}/proto.Plugin/Call`, { method: "POST", headers: { "content-type": "application/grpc" }, body: new Uint8Array(5) });
    expect(res.status).toBe(415);
    expect(res.headers.get("grpc-status")).toBe("12");
    expect(await res.text()).toContain("gRPC-Web");
  });
});
