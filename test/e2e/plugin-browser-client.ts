import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { HeaderSchema, Plugin } from "../../src/gen/proto/plugin_pb";

/**
 * The browser side of test/e2e/plugin-browser.test.ts, bundled by esbuild at test time: what a
 * plugin author's page does with @connectrpc/connect-web (Call and Chat; browsers cannot send
 * client streams, so SendFile is for Node and other clients).
 */
type Protocol = "connect" | "connect-json" | "grpc-web";

function client(baseUrl: string, token: string, protocol: Protocol) {
  const interceptors = [
    (next: any) => (req: any) => {
      req.header.set("Authorization", `Bearer ${token}`);
      return next(req);
    },
  ];
  const transport =
    protocol === "grpc-web"
      ? createGrpcWebTransport({ baseUrl, interceptors })
      : createConnectTransport({ baseUrl, interceptors, useBinaryFormat: protocol === "connect" });
  return createClient(Plugin, transport);
}

const header = (Func: string) => create(HeaderSchema, { UUID: crypto.randomUUID(), Timestamp: BigInt(Date.now()), Func });
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

const demo = {
  async call(baseUrl: string, token: string, protocol: Protocol, func: string, data: string) {
    const res = await client(baseUrl, token, protocol).call({ Header: header(func), Data: enc(data) });
    return { code: res.Code, desc: res.Desc, data: dec(res.Data), from: res.Header?.From, func: res.Header?.Func };
  },
  /** Subscribes; resolves `ready` once subscribed; collects messages with their arrival times. */
  subscribe(baseUrl: string, token: string, protocol: Protocol, topic: string, limit: number) {
    const state = { ready: false, arrivals: [] as { text: string; at: number }[], done: false, error: "" };
    (async () => {
      try {
        for await (const res of client(baseUrl, token, protocol).chat({ Header: header("topic.subscribe"), Data: enc(JSON.stringify({ topic, limit })) })) {
          if (!state.ready) {
            state.ready = true;
            continue;
          }
          state.arrivals.push({ text: dec(res.Data), at: Date.now() });
        }
      } catch (e) {
        state.error = String(e);
      }
      state.done = true;
    })();
    return state;
  },
};

(globalThis as any).pluginDemo = demo;
(globalThis as any).subscriptions = {};
