import { Code, ConnectError, createConnectRouter } from "@connectrpc/connect";
import { universalServerRequestFromFetch, universalServerResponseToFetch } from "@connectrpc/connect/protocol";
import { Plugin } from "../../src/gen/proto/plugin_pb";

/**
 * An external plugin for the gateway tests: a separate Worker (bundled by vitest.config.ts and
 * bound to the service as ECHO_PLUGIN), serving proto.Plugin over Connect like any plugin would.
 *   Call  echo: Data back as JSON with the caller the gateway named; fail: a Connect error
 *   SendFile  the parts, their SHA-256 and the caller back as JSON; Name refuse.bin: a Connect error
 *   Chat  count: Data {"count": n, "gap_ms": ms} streams n messages, gap_ms apart
 */
const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const router = createConnectRouter();
router.service(Plugin, {
  call(req, ctx) {
    if (req.Header?.Func === "fail") throw new ConnectError("the echo plugin refuses", Code.FailedPrecondition);
    const body = {
      echo: new TextDecoder().decode(req.Data),
      func: req.Header?.Func,
      caller: ctx.requestHeader.get("x-plugin-caller-username"),
      authorization: ctx.requestHeader.get("authorization"),
    };
    return { Header: req.Header, Code: 0, Data: enc.encode(JSON.stringify(body)) };
  },
  async *chat(req) {
    const { count = 3, gap_ms = 0 } = JSON.parse(new TextDecoder().decode(req.Data) || "{}");
    for (let i = 1; i <= count; i++) {
      if (i > 1 && gap_ms > 0) await sleep(gap_ms);
      yield { Header: req.Header, Code: 0, Desc: `message ${i}`, Data: enc.encode(JSON.stringify({ i, sent_at: Date.now() })) };
    }
  },
  /** SendFile: the parts it received (Part, length), the bytes' SHA-256 and the caller named. */
  async sendFile(requests, ctx) {
    const parts: { part: number; bytes: number }[] = [];
    const chunks: Uint8Array[] = [];
    let name = "";
    let purpose = "";
    let header;
    for await (const m of requests) {
      header ??= m.Header;
      name = m.Name;
      purpose = m.Purpose;
      parts.push({ part: Number(m.Part), bytes: m.Data.byteLength });
      chunks.push(m.Data);
    }
    if (name === "refuse.bin") throw new ConnectError("the echo plugin refuses this file", Code.PermissionDenied);
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", all))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const body = { name, purpose, parts, sha256: digest, caller: ctx.requestHeader.get("x-plugin-caller-username"), authorization: ctx.requestHeader.get("authorization") };
    return { Header: header, Code: 0, Desc: "stored by echo", Data: enc.encode(JSON.stringify(body)) };
  },
});
const handlers = new Map(router.handlers.map((h) => [h.requestPath, h]));

export default {
  async fetch(request: Request): Promise<Response> {
    const handler = handlers.get(new URL(request.url).pathname);
    if (!handler) return new Response("not found", { status: 404 });
    return universalServerResponseToFetch(await handler(universalServerRequestFromFetch(request, {})));
  },
};
