import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../src/config";
import { checkAllowed, throttleKey } from "../../src/throttle";
import { TEST_PASSWORD, callFrom } from "../helpers/fixtures";
import { Browser, signedInUser } from "../helpers/browser";

/**
 * Issue 8 item 3, docs/security.md (Throttle): re-entering the password while signed in (password
 * change, two-factor enable/disable/recovery codes) counts failures in the failed_auth bucket of
 * the client address and is refused with 429 once the address is banned, before the password is
 * checked, so a stolen session is no unthrottled password oracle.
 */
const LIMIT = getConfig(env).throttle.failedAuth.limit;

function expectThrottledPage(res: Response, html: string) {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(res.headers.get("ratelimit-limit")).toBe(String(LIMIT));
  expect(html).toContain("Too many failed attempts from your network address.");
}

describe("throttle of re-entered passwords while signed in (docs/security.md Throttle)", () => {
  it("password change: wrong current passwords count in failed_auth; once banned even the right one gets 429 and the password stays", async () => {
    const ip = "203.0.113.120";
    const { user, browser } = await signedInUser(new Browser(callFrom(ip)));
    await browser.get("/profile/password/edit");
    for (let i = 0; i < LIMIT; i++) {
      const res = await browser.post("/profile/password", { current_password: `wrong-${i}`, password: "N3w-Passw0rd-long!", password_confirmation: "N3w-Passw0rd-long!" });
      expect(res.status).toBe(422);
      await res.text();
    }
    expect((await checkAllowed(env, "failed_auth", throttleKey(ip))).allowed).toBe(false);
    const refused = await browser.post("/profile/password", { current_password: TEST_PASSWORD, password: "N3w-Passw0rd-long!", password_confirmation: "N3w-Passw0rd-long!" });
    expectThrottledPage(refused, await refused.text());
    const row = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'password_changed' AND entity_id = ?").bind(String(user.id)).first<{ n: number }>();
    expect(row!.n).toBe(0);
  });

  it("two-factor enable: wrong passwords count in failed_auth; once banned even the right one gets 429", async () => {
    const ip = "203.0.113.121";
    const { browser } = await signedInUser(new Browser(callFrom(ip)));
    await browser.get("/profile/two_factor_auth");
    // Enrolment with a wrong password is the same re-entry: it counts.
    for (let i = 0; i < LIMIT; i++) {
      const res = await browser.post("/profile/two_factor_auth", { pin_code: "000000", current_password: `wrong-${i}` });
      expect(res.status).toBe(422);
      await res.text();
    }
    const refused = await browser.post("/profile/two_factor_auth", { pin_code: "000000", current_password: TEST_PASSWORD });
    expectThrottledPage(refused, await refused.text());
    // Other addresses are unaffected.
    expect((await checkAllowed(env, "failed_auth", throttleKey("203.0.113.122"))).allowed).toBe(true);
  });
});
