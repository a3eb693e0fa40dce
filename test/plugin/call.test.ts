import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createTransport as grpcWebTransport } from "@connectrpc/connect/protocol-grpc-web";
import { describe, expect, it } from "vitest";
import { Plugin, ReqSchema } from "../../src/gen/proto/plugin_pb";
import { isFastUnary } from "../../src/plugin/unary-fast";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { asJson, dec, enc, header, pluginClient, PROTOCOLS, transportOptions, workerFetch } from "./client";

describe("Call over each protocol: Connect binary, Connect JSON, gRPC-Web", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: core ping echoes Data with Code 0 and the reply Header rules`, async () => {
      const { token } = await makeUserWithToken();
      const h = header({ Func: "ping" });
      const before = Date.now();
      const res = await pluginClient(protocol, token).call({ Header: h, Data: enc(`hello ${protocol}`) });
      expect(res.Code).toBe(0);
      expect(dec(res.Data)).toBe(`hello ${protocol}`);
      // DESIGN: Res.Header echoes UUID and Func, swaps From and To, carries the server's Timestamp.
      expect(res.Header?.UUID).toBe(h.UUID);
      expect(res.Header?.Func).toBe("ping");
      expect(res.Header?.From).toBe("core");
      expect(res.Header?.To).toBe("");
      expect(Number(res.Header?.Timestamp)).toBeGreaterThanOrEqual(before);
    });

    it(`${protocol}: core whoami returns the caller as /api/v4/user`, async () => {
      const { user, token } = await makeUserWithToken();
      const res = await pluginClient(protocol, token).call({ Header: header({ Func: "whoami" }) });
      expect(res.Code).toBe(0);
      const me = asJson(res.Data);
      expect(me).toMatchObject({ id: user.id, username: user.username, name: user.name, state: "active" });
      const rest = await call("/api/v4/user", { token });
      expect(me).toEqual(await rest.json());
    });
  }
});

describe("Authentication (DESIGN: scope api, unauthenticated / permission_denied)", () => {
  it("no token is Connect unauthenticated", async () => {
    const err = await pluginClient("connect").call({ Header: header() }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("an unknown token is Connect unauthenticated on every protocol", async () => {
    for (const protocol of PROTOCOLS) {
      const err = await pluginClient(protocol, "glpat-not-a-real-token").call({ Header: header() }).catch((e) => e);
      expect(ConnectError.from(err).code).toBe(Code.Unauthenticated);
    }
  });

  it("a token without scope api is Connect permission_denied", async () => {
    const { token } = await makeUserWithToken({ scopes: ["read_api"] });
    const err = await pluginClient("grpc-web", token).call({ Header: header() }).catch((e) => e);
    expect(ConnectError.from(err).code).toBe(Code.PermissionDenied);
  });
});

describe("core functions", () => {
  it("deprecations.list lists the catalogue with each entry's state at the configured version", async () => {
    const { token } = await makeUserWithToken();
    const res = await pluginClient("connect", token).call({ Header: header({ Func: "deprecations.list" }) });
    expect(res.Code).toBe(0);
    const body = asJson(res.Data);
    expect(body.service_version).toBe("16.0");
    const entry = body.entries.find((e: { id: string }) => e.id === "security-report-min-schema-version");
    expect(entry).toMatchObject({ removed_in: "15.0", state: "removed" });
  });

  it("an unknown Func of core is Code 12; a Chat function called with Call is Code 12", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    const unknown = await client.call({ Header: header({ Func: "no.such.function" }) });
    expect(unknown.Code).toBe(12);
    expect(unknown.Desc).toContain("no function");
    const chatOnly = await client.call({ Header: header({ Func: "topic.subscribe" }), Data: enc('{"topic":"x"}') });
    expect(chatOnly.Code).toBe(12);
    expect(chatOnly.Desc).toContain("Chat");
  });

  it("an unknown To is Code 5", async () => {
    const { token } = await makeUserWithToken();
    const res = await pluginClient("connect-json", token).call({ Header: header({ To: "nobody-here" }) });
    expect(res.Code).toBe(5);
    expect(res.Header?.From).toBe("nobody-here");
  });

  it("files.get with bad Data is Code 3, with an unknown id Code 5", async () => {
    const { token } = await makeUserWithToken();
    const client = pluginClient("connect", token);
    expect((await client.call({ Header: header({ Func: "files.get" }), Data: enc("not json") })).Code).toBe(3);
    expect((await client.call({ Header: header({ Func: "files.get" }), Data: enc('{"id":"nope"}') })).Code).toBe(5);
  });
});

/**
 * src/plugin/unary-fast.ts answers a unary Call over Connect binary, Connect JSON and gRPC-Web
 * binary without the Connect router; every other shape of Call goes through the router. Both
 * paths must give the same answers: the tests above take the fast one, these the router's.
 */
describe("Call off the fast path (gRPC-Web JSON, compressed bodies) answers as the fast path does", () => {
  const grpcWebJson = (token?: string) => createClient(Plugin, grpcWebTransport({ ...transportOptions(token), useBinaryFormat: false }));

  it("the fast path takes exactly uncompressed unary Call over Connect binary, Connect JSON and gRPC-Web binary", () => {
    const req = (type: string, headers: Record<string, string> = {}, method = "POST") => new Request("http://localhost/proto.Plugin/Call", { method, headers: { "content-type": type, ...headers } });
    expect(isFastUnary(req("application/proto"), "/proto.Plugin/Call")).toBe("binary");
    expect(isFastUnary(req("application/json; charset=utf-8"), "/proto.Plugin/Call")).toBe("json");
    expect(isFastUnary(req("application/grpc-web+proto"), "/proto.Plugin/Call")).toBe("grpc-web");
    expect(isFastUnary(req("application/grpc-web+json"), "/proto.Plugin/Call")).toBeNull();
    expect(isFastUnary(req("application/proto", { "content-encoding": "gzip" }), "/proto.Plugin/Call")).toBeNull();
    expect(isFastUnary(req("application/grpc-web", { "grpc-encoding": "gzip" }), "/proto.Plugin/Call")).toBeNull();
    expect(isFastUnary(req("application/proto", {}, "GET"), "/proto.Plugin/Call")).toBeNull();
    expect(isFastUnary(req("application/connect+proto"), "/proto.Plugin/SendFile")).toBeNull();
  });

  it("gRPC-Web JSON: core ping and whoami give the fast path's answers through the router", async () => {
    const { user, token } = await makeUserWithToken();
    const h = header({ Func: "ping" });
    const slow = await grpcWebJson(token).call({ Header: h, Data: enc("hello router") });
    const fast = await pluginClient("grpc-web", token).call({ Header: h, Data: enc("hello router") });
    expect(slow.Code).toBe(0);
    expect(dec(slow.Data)).toBe("hello router");
    expect({ ...slow.Header, Timestamp: 0n }).toEqual({ ...fast.Header, Timestamp: 0n });
    const me = asJson((await grpcWebJson(token).call({ Header: header({ Func: "whoami" }) })).Data);
    expect(me).toMatchObject({ id: user.id, username: user.username });
  });

  it("gRPC-Web JSON: refusals carry the same codes as on the fast path (no token, unknown function)", async () => {
    const noToken = await grpcWebJson().call({ Header: header() }).catch((e) => e);
    expect(ConnectError.from(noToken).code).toBe(Code.Unauthenticated);
    const { token } = await makeUserWithToken();
    const unknown = header({ Func: "no.such.function" });
    const slow = await grpcWebJson(token).call({ Header: unknown }).then((r) => r.Code, (e) => ConnectError.from(e).code);
    const fast = await pluginClient("grpc-web", token).call({ Header: unknown }).then((r) => r.Code, (e) => ConnectError.from(e).code);
    expect(slow).toBe(fast);
  });

  it("a compressed Connect body, which the fast path leaves alone, gets the router's Connect unimplemented error (no encoding is accepted), never an internal error", async () => {
    const { token } = await makeUserWithToken();
    const body = toBinary(ReqSchema, create(ReqSchema, { Header: header() }));
    const gzipped = new Uint8Array(await new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const res = await workerFetch()(
      new Request("http://localhost/proto.Plugin/Call", {
        method: "POST",
        headers: { "content-type": "application/proto", "content-encoding": "gzip", "connect-protocol-version": "1", Authorization: `Bearer ${token}` },
        body: gzipped,
      }),
    );
    // Connect maps unimplemented to HTTP 501 (connect-es codeToHttpStatus).
    expect(res.status).toBe(501);
    expect(res.headers.get("content-type")).toBe("application/json");
    const err = (await res.json()) as { code: string; message: string };
    expect(err.code).toBe("unimplemented");
    expect(err.message).toContain("gzip");
  });
});
