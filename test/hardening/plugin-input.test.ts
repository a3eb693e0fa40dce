import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { asJson, enc, header, pluginClient } from "../plugin/client";

/**
 * Issue 12 "No 5xx from input" for the Plugin RPC family: broken protobuf frames over Connect
 * (binary and JSON) and gRPC-Web envelopes are Connect errors with a 4xx (or gRPC-Web's status in
 * trailers), never a 500; issue 8 item 11 for SendFile's ci_config.
 */
const { token } = await makeUserWithToken();
const auth = { Authorization: `Bearer ${token}` };

function envelope(flags: number, payload: Uint8Array, declaredLength = payload.byteLength): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(5 + payload.byteLength);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, declaredLength);
  out.set(payload, 5);
  return out;
}

const garbage: Uint8Array<ArrayBuffer> = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x80]);

describe("broken Connect unary bodies", () => {
  for (const [what, type, body] of [
    ["binary garbage", "application/proto", garbage],
    ["truncated varint", "application/proto", new Uint8Array([0x0a, 0xff])],
    ["malformed JSON", "application/json", enc("{")],
    ["JSON of the wrong shape", "application/json", enc('{"Header": 12}')],
  ] as const) {
    it(`Call with ${what} is a 4xx Connect error`, async () => {
      const res = await call("/proto.Plugin/Call", { method: "POST", headers: { ...auth, "Content-Type": type }, body });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const err = (await res.json()) as { code: string };
      expect(err.code).toBe("invalid_argument");
    });
  }
});

describe("broken streaming envelopes", () => {
  for (const [what, bytes] of [
    ["an envelope longer than its body", envelope(0, garbage, 1000)],
    ["a lone flag byte", new Uint8Array([0])],
    ["garbage in a well-formed envelope", envelope(0, garbage)],
    ["an unknown flag", envelope(0x40, garbage)],
  ] as const) {
    it(`SendFile over Connect with ${what} is a Connect error, not a 5xx`, async () => {
      const res = await call("/proto.Plugin/SendFile", { method: "POST", headers: { ...auth, "Content-Type": "application/connect+proto" }, body: bytes });
      expect(res.status).toBeLessThan(500);
      const text = await res.text();
      // Connect streaming answers 200 and puts the error in the end-of-stream message.
      expect(text).toMatch(/"code":"invalid_argument"/);
    });
    it(`Call over gRPC-Web with ${what} answers grpc-status 3, not a 5xx`, async () => {
      const res = await call("/proto.Plugin/Call", { method: "POST", headers: { ...auth, "Content-Type": "application/grpc-web+proto" }, body: bytes });
      expect(res.status).toBeLessThan(500);
      const trailers = new TextDecoder().decode(await res.arrayBuffer());
      const status = res.headers.get("grpc-status") ?? /grpc-status:\s*(\d+)/.exec(trailers)?.[1];
      expect(status).toBe("3");
    });
  }
});

describe("a YAML alias bomb in SendFile ci_config is a lint error, never an internal error", () => {
  it("is a lint error (valid: false), never Code 13", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ..."bcdefghi".split("").map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`), "job:\n  script: *i"].join("\n");
    const bytes = enc(bomb);
    async function* one() {
      yield create(FileStreamSchema, { Header: header(), Name: ".gitlab-ci.yml", Purpose: "ci_config", TotalSize: BigInt(bytes.byteLength), TotalPart: 1n, Part: 1n, Data: bytes });
    }
    const res = await pluginClient("connect", token).sendFile(one());
    expect(res.Code).toBe(0);
    const processing = asJson(res.Data).processing;
    expect(processing).toMatchObject({ kind: "ci_config", valid: false });
    expect(processing.errors.join()).toMatch(/alias/i);
  });
});
