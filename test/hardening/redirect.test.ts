import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "../../src/web/redirect";
import { Browser, signedInUser } from "../helpers/browser";

/** Issue 8 item 4: `redirect_to` after sign-in is checked after normalisation (no open redirect). */
const VECTORS = [
  "/.//evil.example",
  "/a/..//evil.example",
  "/%2e//evil.example",
  "/%2E//evil.example",
  "/.%2e//evil.example",
  "/a/%2e%2e//evil.example",
  "/./\\evil.example",
  "/\\evil.example",
  "/%5C/evil.example",
  "/..//evil.example",
  "/./%2e/.//evil.example",
  "//evil.example",
  "///evil.example",
  "https://evil.example",
  "/\t/evil.example",
  "javascript:alert(1)",
];

describe("safeRedirectPath checks the normalised path", () => {
  for (const v of VECTORS) {
    it(`${JSON.stringify(v)} never resolves to another host`, () => {
      const out = safeRedirectPath(v);
      expect(out.startsWith("/")).toBe(true);
      expect(out.startsWith("//")).toBe(false);
      expect(out).not.toMatch(/\\/);
      expect(new URL(out, "https://service.example").host).toBe("service.example");
    });
  }
  it("ordinary local paths are kept, normalised", () => {
    expect(safeRedirectPath("/profile/applications?x=1#y")).toBe("/profile/applications?x=1#y");
    expect(safeRedirectPath("/a/../oauth/authorize?client_id=1")).toBe("/oauth/authorize?client_id=1");
  });
});

describe("a signed-in person opening /users/sign_in?redirect_to=… stays on the service", () => {
  it("every vector redirects to a local path", async () => {
    const browser = new Browser();
    await signedInUser(browser);
    for (const v of VECTORS) {
      const res = await browser.get(`/users/sign_in?redirect_to=${encodeURIComponent(v)}`);
      expect(res.status).toBe(302);
      const location = res.headers.get("location") ?? "";
      expect(new URL(location, "https://service.example").host, v).toBe("service.example");
    }
    // The literal (unencoded) forms from the issue as a browser sends them.
    for (const raw of ["/.//evil.example", "/a/..//evil.example", "/%2e//evil.example"]) {
      const res = await browser.get(`/users/sign_in?redirect_to=${raw}`);
      expect(new URL(res.headers.get("location") ?? "", "https://service.example").host, raw).toBe("service.example");
    }
  });
});
