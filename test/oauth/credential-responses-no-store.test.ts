import { describe, expect, it } from "vitest";
import { call, makeApp } from "./helpers";

/**
 * Issue 8 item 3, RFC 6749 §5.1 (responses carrying credentials are not cached): the answers that
 * hand out new credentials carry Cache-Control: no-store, on success and on error.
 */
describe("Cache-Control: no-store on responses that carry new credentials", () => {
  it("POST /oauth/register (RFC 7591 §3.2.1: a new client_id), success and error", async () => {
    const headers = { "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.201" };
    const ok = await call("/oauth/register", { method: "POST", headers, body: JSON.stringify({ client_name: "no-store check", redirect_uris: ["https://client.example/cb"], scope: "read_api" }) });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const bad = await call("/oauth/register", { method: "POST", headers, body: "{" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("cache-control")).toBe("no-store");
  });

  it("POST /oauth/authorize_device (RFC 8628 §3.2: a new device_code), success and error", async () => {
    const { app } = await makeApp({ confidential: false, scopes: ["read_api"] });
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const ok = await call("/oauth/authorize_device", { method: "POST", headers: form, body: new URLSearchParams({ client_id: app.uid }) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(await ok.json()).toHaveProperty("device_code");
    const bad = await call("/oauth/authorize_device", { method: "POST", headers: form, body: new URLSearchParams({ client_id: app.uid, scope: "sudo" }) });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("cache-control")).toBe("no-store");
  });
});
