import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { asJson, dec, enc, header, pluginClient, PROTOCOLS } from "./client";

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
