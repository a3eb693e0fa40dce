import { describe, expect, it } from "vitest";
import { call } from "../helpers/fixtures";

/**
 * RFC 6750 §3: a request to a protected resource without a usable token is answered with a
 * `WWW-Authenticate: Bearer` challenge (no error code when no token was sent, §3.1
 * `invalid_token` for a bad one), as REST, GraphQL and userinfo do; RFC 9728 §5.1 adds
 * `resource_metadata`. Plugin RPC sends it on Connect (401, a response header) and gRPC-Web (HTTP
 * 200 with grpc-status 16 in the trailers, where gRPC-Web carries an error's metadata), unary and
 * streaming.
 */
const connectJson = (path: string, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", body: "{}", headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1", ...headers } });
const grpcWeb = (path: string, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", body: new Uint8Array([0, 0, 0, 0, 0]), headers: { "Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1", ...headers } });

/** The gRPC-Web trailer frame (flag 0x80): `name: value` lines, as a gRPC-Web client reads error metadata. */
function trailersOf(body: Uint8Array): Map<string, string> {
  let at = 0;
  while (at + 5 <= body.length) {
    const length = new DataView(body.buffer, body.byteOffset + at + 1, 4).getUint32(0);
    if (body[at] & 0x80) {
      const text = new TextDecoder().decode(body.subarray(at + 5, at + 5 + length));
      return new Map(text.split("\r\n").filter(Boolean).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    }
    at += 5 + length;
  }
  throw new Error("no trailer frame");
}

const challenge = /^Bearer realm="GitLab", .*resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource"$/;

describe("RFC 6750 §3: Plugin RPC refusals carry the Bearer challenge", () => {
  it("Connect: a unary call without a token is 401 unauthenticated with WWW-Authenticate: Bearer (no error code)", async () => {
    const res = await connectJson("/proto.Plugin/Call");
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("unauthenticated");
    const value = res.headers.get("www-authenticate");
    expect(value).toMatch(challenge);
    expect(value).not.toContain("error=");
  });

  it("Connect: an invalid token gets error=\"invalid_token\" in the challenge", async () => {
    const res = await connectJson("/proto.Plugin/Call", { Authorization: "Bearer gloat-not-a-real-token" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="GitLab", error="invalid_token"/);
  });

  it("gRPC-Web: a unary call and a server-streaming call without a token end in the trailers grpc-status 16 and www-authenticate", async () => {
    for (const path of ["/proto.Plugin/Call", "/proto.Plugin/Chat"]) {
      const res = await grpcWeb(path);
      expect(res.status, path).toBe(200);
      const trailers = trailersOf(new Uint8Array(await res.arrayBuffer()));
      expect(trailers.get("grpc-status"), path).toBe("16");
      expect(trailers.get("www-authenticate"), path).toMatch(challenge);
    }
  });
});
