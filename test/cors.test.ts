import { describe, expect, it } from "vitest";
import { call } from "./helpers/fixtures";

const preflight = (path: string) =>
  call(path, {
    method: "OPTIONS",
    headers: { Origin: "https://spa.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization" },
  });

describe("CORS (DESIGN, OAuth behaviour: allowed for token endpoints and /api/*, never for authorize or pages)", () => {
  for (const path of ["/oauth/token", "/oauth/token/info", "/oauth/revoke", "/oauth/introspect", "/api/v4/user"]) {
    it(`allows a browser origin on ${path}`, async () => {
      const res = await preflight(path);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://spa.example");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    });
  }

  for (const path of ["/oauth/authorize", "/users/sign_in", "/profile/applications"]) {
    it(`sends no CORS headers on ${path}`, async () => {
      const res = await preflight(path);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    });
  }
});

describe("CORS for non-browser clients (bench/RESULTS.md, Profile: the CORS work is skipped without Origin)", () => {
  it("a request without Origin gets no CORS headers but Vary: Origin; with Origin it gets Access-Control-Allow-Origin", async () => {
    const plain = await call("/api/v4/deprecations");
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("vary")).toContain("Origin");
    const browser = await call("/api/v4/deprecations", { headers: { Origin: "https://spa.example" } });
    expect(browser.headers.get("access-control-allow-origin")).toBe("https://spa.example");
    expect(browser.headers.get("vary")).toContain("Origin");
  });
});
