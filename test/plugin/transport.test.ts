import { describe, expect, it } from "vitest";
import { call } from "../helpers/fixtures";

describe("Transport (DESIGN: Connect and gRPC-Web; plain gRPC cannot be served by workerd)", () => {
  it("plain gRPC is answered with an error naming the supported protocols (grpc-status 12)", async () => {
    const res = await call("/proto.Plugin/Call", { method: "POST", headers: { "Content-Type": "application/grpc", TE: "trailers" }, body: new Uint8Array(5) });
    expect(res.status).toBe(415);
    expect(res.headers.get("grpc-status")).toBe("12");
    const text = await res.text();
    expect(text).toContain("plain gRPC is not served");
    expect(text).toContain("gRPC-Web");
    expect(text).toContain("Connect");
    expect(decodeURIComponent(res.headers.get("grpc-message")!)).toBe(text);
  });

  it("application/grpc+proto is refused the same way", async () => {
    const res = await call("/proto.Plugin/Chat", { method: "POST", headers: { "Content-Type": "application/grpc+proto" }, body: new Uint8Array(5) });
    expect(res.status).toBe(415);
  });

  it("an unknown method is 404 and not a 500", async () => {
    const res = await call("/proto.Plugin/Nope", { method: "POST", headers: { "Content-Type": "application/proto" }, body: new Uint8Array(0) });
    expect(res.status).toBe(404);
  });

  it("a malformed Connect body is a Connect invalid_argument error, never a stack", async () => {
    const res = await call("/proto.Plugin/Call", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it("a CORS preflight from a browser origin is allowed with Connect's headers and Authorization", async () => {
    const res = await call("/proto.Plugin/Call", {
      method: "OPTIONS",
      headers: { Origin: "http://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type,connect-protocol-version" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://app.example");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
