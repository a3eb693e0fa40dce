import { describe, expect, it } from "vitest";
import { Browser, signedInUser } from "../helpers/browser";
import { makeUser } from "../helpers/fixtures";
import { callerAt } from "../helpers/versioned";
import { GRANT, authorizeDevice, enterCode, errorOf, poll, start } from "../oidc/device-helpers";
import { REDIRECT, TEST_PASSWORD, authorizeUrl, makeApp, pkceTokens, refresh, tokenRequest } from "./helpers";

/**
 * DESIGN, Agents: "Every grant checks that the client registered its grant type". A dynamic
 * registration (RFC 7591) holds authorization_code and refresh_token; applications created
 * through the API or the pages hold every grant GitLab serves (docs/oauth.md, Grant types per
 * client). A grant the client does not hold is unauthorized_client (RFC 6749 §5.2).
 */
const registered = () => makeApp({ confidential: false, dynamic: true, scopes: ["api", "read_user", "openid"] });

describe("RFC 6749 §5.2 unauthorized_client: a client registered for authorization_code uses no other grant", () => {
  it("RFC 8628 §3.1: the device authorization endpoint refuses a registered code-only client with unauthorized_client", async () => {
    const { app } = await registered();
    const res = await authorizeDevice({ client_id: app.uid });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("unauthorized_client");
  });

  it("the password grant with a registered code-only client is unauthorized_client, and issues nothing", async () => {
    const { app } = await registered();
    const user = await makeUser();
    const res = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, client_id: app.uid });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.error).toBe("unauthorized_client");
    expect(body.access_token).toBeUndefined();
  });

  it("the device_code grant at the token endpoint with a registered code-only client is unauthorized_client", async () => {
    const { app } = await registered();
    expect(await errorOf(await tokenRequest({ grant_type: GRANT, client_id: app.uid, device_code: "x".repeat(43) }))).toBe("unauthorized_client");
  });

  it("RFC 6749 §4.2.2.1: response_type=token (implicit, below 15.0) for a registered code-only client redirects with unauthorized_client", async () => {
    const { app } = await registered();
    const browser = new Browser(callerAt("14.10"));
    await signedInUser(browser);
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "token", state: "imp" }));
    expect(res.status).toBe(302);
    const frag = new URLSearchParams(new URL(res.headers.get("location")!).hash.slice(1));
    expect(frag.get("error")).toBe("unauthorized_client");
    expect(frag.get("state")).toBe("imp");
  });

  it("the grants a registered client holds still work: code with PKCE, then refresh", async () => {
    const { app, tokens } = await pkceTokens({ dynamic: true });
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
  });

  it("an application created through the API or the pages holds GitLab's grants: password, device and code", async () => {
    const { app, secret } = await makeApp({ confidential: true });
    const user = await makeUser();
    const password = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, { basic: [app.uid, secret] });
    expect(password.status).toBe(200);
    const device = await start(["api"], "api");
    const { browser } = await signedInUser();
    await enterCode(browser, device.auth.user_code);
    expect((await poll(device.app.uid, device.auth.device_code)).status).toBe(200);
  });
});
