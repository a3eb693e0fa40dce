import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { userChanged } from "../../src/services/accounts/user-changed";
import { signedInUser } from "../helpers/browser";
import { makeUserWithToken } from "../helpers/fixtures";
import { enterCode, errorOf, poll, start } from "../oidc/device-helpers";
import { oidcLogin, type OidcTokens } from "../oidc/helpers";
import { REDIRECT, call, getCode, makeApp, pkce, refresh, setUser, tokenRequest } from "./helpers";

/**
 * DESIGN, Identity provider, "Blocked and deactivated users get nothing from any grant": code
 * exchange, device redemption and refresh check the user's state when they issue; a device code
 * approved before a block is dead; unblocking revives nothing.
 */
const act = async (id: number, action: "block" | "unblock" | "deactivate" | "activate") => {
  const { token } = await makeUserWithToken({ isAdmin: true });
  const res = await call(`/api/v4/users/${id}/${action}`, { method: "POST", token });
  expect(res.status).toBe(201);
};

/** GitLab deactivates only users without activity for 90 days. */
const makeInactive = (id: number) => setUser(id, { lastSignInAt: Date.now() - 200 * 86_400_000 });

/** A device grant the person approved; the device has not polled since. */
async function approvedDeviceCode(scopes = ["api", "read_user", "openid"]) {
  const { app, auth } = await start(scopes, scopes.join(" "));
  const { user, browser } = await signedInUser();
  await enterCode(browser, auth.user_code);
  return { app, user, auth };
}

/** A device grant redeemed: its tokens (with an id_token, scope openid). */
async function deviceTokens() {
  const { app, user, auth } = await approvedDeviceCode();
  const res = await poll(app.uid, auth.device_code);
  expect(res.status).toBe(200);
  return { app, user, tokens: (await res.json()) as OidcTokens };
}

describe("DESIGN, Blocked and deactivated users: the device grant (RFC 8628)", () => {
  it("a device code approved before a block is dead: the poll after the block is access_denied (§3.5) and issues nothing", async () => {
    const { app, user, auth } = await approvedDeviceCode();
    await act(user.id, "block");
    const res = await poll(app.uid, auth.device_code);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, string>;
    expect(body.error).toBe("access_denied");
    expect(body.access_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
  });

  it("unblocking revives nothing: the code approved before the block stays access_denied, the grant's refresh token stays refused", async () => {
    const approved = await approvedDeviceCode();
    const redeemed = await deviceTokens();
    // Both grants belong to people who are blocked, then unblocked.
    for (const id of [approved.user.id, redeemed.user.id]) await act(id, "block");
    expect(await errorOf(await refresh(redeemed.app, redeemed.tokens.refresh_token))).toBe("invalid_grant");
    for (const id of [approved.user.id, redeemed.user.id]) await act(id, "unblock");
    expect(await errorOf(await poll(approved.app.uid, approved.auth.device_code))).toBe("access_denied");
    expect(await errorOf(await refresh(redeemed.app, redeemed.tokens.refresh_token))).toBe("invalid_grant");
    expect((await call("/api/v4/user", { token: redeemed.tokens.access_token })).status).toBe(401);
  });

  it("deactivation ends a device code approved and not yet redeemed; activation does not bring it back", async () => {
    const { app, user, auth } = await approvedDeviceCode();
    await makeInactive(user.id);
    await act(user.id, "deactivate");
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("access_denied");
    await act(user.id, "activate");
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("access_denied");
  });

  it("redemption checks the user's state when it issues: an approved code of a user who is no longer active gets no tokens", async () => {
    // The state changed without the block's bookkeeping (the device code is still approved).
    const { app, user, auth } = await approvedDeviceCode();
    await setUser(user.id, { state: "blocked" });
    const res = await poll(app.uid, auth.device_code);
    expect(res.status).toBe(400);
    expect(((await res.json()) as Record<string, unknown>).access_token).toBeUndefined();
  });
});

describe("DESIGN, Blocked and deactivated users: refresh checks the user's state when it issues", () => {
  it("a device grant's refresh token after a block is invalid_grant, with no id_token", async () => {
    const { app, user, tokens } = await deviceTokens();
    await act(user.id, "block");
    const res = await refresh(app, tokens.refresh_token);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, string>;
    expect(body.error).toBe("invalid_grant");
    expect(body.id_token).toBeUndefined();
  });

  it("a grant whose user is no longer active is refused even when nothing revoked it (the state is read when issuing)", async () => {
    const { app, user, tokens } = await deviceTokens();
    // A fresh user snapshot in the family: the refresh must not trust it past a state change.
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    await setUser(user.id, { state: "blocked" });
    await userChanged(env, user.id);
    expect(await errorOf(await refresh(app, tokens.refresh_token))).toBe("invalid_grant");
  });

  it("a deactivated user's refresh is refused while deactivated and works again after activation (GitLab keeps the grant)", async () => {
    const { app, user, tokens } = await oidcLogin("openid api");
    await makeInactive(user.id);
    await act(user.id, "deactivate");
    expect(await errorOf(await refresh(app, tokens.refresh_token))).toBe("invalid_grant");
    await act(user.id, "activate");
    const again = await refresh(app, tokens.refresh_token);
    expect(again.status).toBe(200);
    expect(((await again.json()) as OidcTokens).id_token).toBeTruthy();
  });
});

describe("DESIGN, Blocked and deactivated users: the code exchange checks the user's state when it issues", () => {
  it("a code approved by a user deactivated before the exchange is invalid_grant; after activation, within its life, it is exchanged", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    await makeInactive(user.id);
    await act(user.id, "deactivate");
    const exchange = () => tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
    const refused = await exchange();
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toBe("invalid_grant");
    await act(user.id, "activate");
    expect((await exchange()).status).toBe(200);
  });
});
