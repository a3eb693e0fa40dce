import { describe, expect, it } from "vitest";
import { Browser, ORIGIN, signedInUser } from "../helpers/browser";
import { call, makeApp } from "../oauth/helpers";

/**
 * RFC 8628 §5.1 (user code brute forcing), docs/oidc.md (Throttling): every door that takes a typed
 * user code is under the device_code_entry limit, the decision as well as the code form: ten wrong
 * codes a minute per person and client address, then 429 before any lookup.
 */
async function deviceAuthorization(): Promise<{ user_code: string }> {
  const { app } = await makeApp({ confidential: false, scopes: ["api"] });
  const res = await call("/oauth/authorize_device", { method: "POST", body: new URLSearchParams({ client_id: app.uid }), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  expect(res.status).toBe(200);
  return (await res.json()) as { user_code: string };
}

function decideFrom(browser: Browser, ip: string, userCode: string) {
  const body = new URLSearchParams({ user_code: userCode, decision: "approve", authenticity_token: browser.csrf() });
  return browser.fetch("/oauth/device/decision", { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN, "CF-Connecting-IP": ip } });
}

describe("typed user codes at POST /oauth/device/decision (RFC 8628 §5.1)", () => {
  it("count towards the code-entry limit; past it a real code is refused with 429 and not decided", async () => {
    const { user_code } = await deviceAuthorization();
    const { browser } = await signedInUser();
    await browser.get("/oauth/device");
    const ip = "192.0.2.60";
    for (let i = 0; i < 10; i++) expect((await decideFrom(browser, ip, "CCCC-CCCC")).status).toBe(422);
    const refused = await decideFrom(browser, ip, user_code);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The code was not decided: it can still be approved once the ban is over (another person, another address).
    const other = await signedInUser();
    await other.browser.get("/oauth/device");
    expect((await decideFrom(other.browser, "192.0.2.61", user_code)).status).toBe(200);
  });

  it("the code form and the decision share one count: wrong codes on either add up", async () => {
    const { user_code } = await deviceAuthorization();
    const { browser } = await signedInUser();
    await browser.get("/oauth/device");
    const ip = "192.0.2.62";
    for (let i = 0; i < 5; i++) expect((await decideFrom(browser, ip, "DDDD-DDDD")).status).toBe(422);
    for (let i = 0; i < 5; i++) {
      const body = new URLSearchParams({ user_code: "DDDD-DDDD", authenticity_token: browser.csrf() });
      const res = await browser.fetch("/oauth/device", { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN, "CF-Connecting-IP": ip } });
      expect(res.status).toBe(422);
    }
    expect((await decideFrom(browser, ip, user_code)).status).toBe(429);
  });
});
