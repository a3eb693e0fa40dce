import { env } from "cloudflare:test";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { withVars } from "../../src/config";
import { getDb } from "../../src/db/client";
import { createApplication } from "../../src/db/applications";
import { deliverDueLogouts, FIRST_BACKOFF_MS, LOGOUT_EVENT, MAX_ATTEMPTS, backoffMs } from "../../src/services/logout/backchannel";
import { Browser, signedInUser } from "../helpers/browser";
import { unique } from "../helpers/fixtures";
import { REDIRECT, call, refresh } from "../oauth/helpers";
import { jwks, OIDC_SCOPES, oidcLogin, verifyIdToken } from "./helpers";
import { deliveriesOf, installReceivers, outboundCalls, receiver, until } from "./logout-helpers";

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oidc.md, "Signing out"): the logout token (§2.4),
 * its delivery to every client the ended session signed into (§2.5-2.8) with retries, the
 * outbound guard, the grants that end with the session, and the registration metadata (§2.2, §4).
 */
beforeEach(installReceivers);
afterEach(() => vi.restoreAllMocks());

const bcUrl = () => `https://rp.example/${unique("bc")}`;

async function auditRows(action: string, entityId: number) {
  const { results } = await env.DB.prepare("SELECT details FROM audit_events WHERE action = ? AND entity_type = 'oauth_application' AND entity_id = ?")
    .bind(action, String(entityId))
    .all<{ details: string }>();
  return results.map((r) => JSON.parse(r.details) as Record<string, unknown>);
}

describe("Back-Channel Logout 1.0 §2.4-2.5: the logout token sent when a session ends", () => {
  it("POSTs a logout_token to each client the session signed into: typ logout+jwt, iss, aud, iat, exp, jti, events, sub, sid; no nonce; verified against the JWKS", async () => {
    const url = bcUrl();
    const rp = receiver(url);
    const signedIn = await signedInUser();
    const { app, tokens, user, browser } = await oidcLogin("openid profile", { nonce: "n-1" }, { backchannelLogoutUri: url, backchannelLogoutSessionRequired: true }, signedIn);
    // A second client of the same session without a back-channel URI, and one the session never used.
    await oidcLogin("openid", {}, {}, signedIn);
    const bystander = receiver(bcUrl());
    await createApplication(getDb(env.DB), { name: unique("Other "), redirectUri: REDIRECT, scopes: OIDC_SCOPES, backchannelLogoutUri: bystander.url });
    const idClaims = await verifyIdToken(tokens.id_token!, app.uid);
    expect(typeof idClaims.sid).toBe("string");

    await browser.get("/profile/active_sessions");
    expect((await browser.post("/users/sign_out", {})).status).toBe(303);
    await until(() => rp.received.length > 0);
    expect(rp.received).toHaveLength(1);
    expect(rp.received[0].contentType).toBe("application/x-www-form-urlencoded");
    const token = rp.received[0].token;
    expect(decodeProtectedHeader(token).typ).toBe("logout+jwt");
    const { payload } = await jwtVerify(token, await jwks(), { issuer: "http://localhost", audience: app.uid, typ: "logout+jwt", algorithms: ["RS256"] });
    expect(payload.sub).toBe(String(user.id));
    expect(payload.sid).toBe(idClaims.sid);
    expect(payload.events).toEqual({ [LOGOUT_EVENT]: {} });
    expect(typeof payload.jti).toBe("string");
    expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
    expect(payload).not.toHaveProperty("nonce");
    expect(bystander.received).toHaveLength(0);
    expect((await deliveriesOf(app.id)).map((d) => d.status)).toEqual(["delivered"]);
  });

  it("without backchannel_logout_session_required the token carries sub and no sid, and ID tokens no sid", async () => {
    const url = bcUrl();
    const rp = receiver(url);
    const { app, tokens, browser } = await oidcLogin("openid", {}, { backchannelLogoutUri: url });
    expect(await verifyIdToken(tokens.id_token!, app.uid)).not.toHaveProperty("sid");
    await browser.get("/profile/active_sessions");
    await browser.post("/users/sign_out", {});
    await until(() => rp.received.length > 0);
    const { payload } = await jwtVerify(rp.received[0].token, await jwks(), { audience: app.uid });
    expect(payload.sub).toBeTruthy();
    expect(payload).not.toHaveProperty("sid");
  });

  it("revoking a session on /profile/active_sessions notifies the clients it signed into", async () => {
    const url = bcUrl();
    const rp = receiver(url);
    const { user, browser: other } = await signedInUser();
    await oidcLogin("openid", {}, { backchannelLogoutUri: url }, { user, browser: other });
    const mine = new Browser();
    await mine.signIn(user.username, "5iveL!fe-test-password".length ? (await import("../helpers/fixtures")).TEST_PASSWORD : "", "/");
    const page = await (await mine.get("/profile/active_sessions")).text();
    const otherId = /\/profile\/active_sessions\/([0-9a-f]+)\/revoke/.exec(page)![1];
    expect((await mine.post(`/profile/active_sessions/${otherId}/revoke`, {})).status).toBe(303);
    await until(() => rp.received.length > 0);
    expect(rp.received).toHaveLength(1);
  });
});

describe("Back-Channel Logout 1.0 §2.8: delivery until the client answers 2xx", () => {
  it("a failing receiver is retried with exponential backoff, and the delivery ends once it answers 200", async () => {
    const url = bcUrl();
    const rp = receiver(url, [500, 503]);
    const { app, browser } = await oidcLogin("openid", {}, { backchannelLogoutUri: url });
    await browser.get("/profile/active_sessions");
    await browser.post("/users/sign_out", {});
    await until(async () => (await deliveriesOf(app.id))[0]?.attempts === 1);
    let [row] = await deliveriesOf(app.id);
    expect(row.status).toBe("pending");
    expect(row.last_error).toContain("500");
    // Not due before its backoff has passed.
    expect(await deliverDueLogouts(env, Date.now())).toMatchObject({ delivered: 0 });
    expect(rp.received).toHaveLength(1);
    await deliverDueLogouts(env, row.next_attempt_at);
    [row] = await deliveriesOf(app.id);
    expect(row).toMatchObject({ status: "pending", attempts: 2 });
    expect(backoffMs(2)).toBe(2 * FIRST_BACKOFF_MS);
    await deliverDueLogouts(env, row.next_attempt_at);
    [row] = await deliveriesOf(app.id);
    expect(row).toMatchObject({ status: "delivered", attempts: 3 });
    expect(rp.received).toHaveLength(3);
    // Each attempt is the same logout (one jti), signed afresh.
    const jtis = await Promise.all(rp.received.map(async (r) => (await jwtVerify(r.token, await jwks(), { audience: app.uid })).payload.jti));
    expect(new Set(jtis).size).toBe(1);
  });

  it("gives up after MAX_ATTEMPTS failures, with an audit row an administrator sees", async () => {
    const url = bcUrl();
    const rp = receiver(url, Array(MAX_ATTEMPTS).fill(500));
    const { app, browser } = await oidcLogin("openid", {}, { backchannelLogoutUri: url });
    await browser.get("/profile/active_sessions");
    await browser.post("/users/sign_out", {});
    await until(async () => (await deliveriesOf(app.id))[0]?.attempts === 1);
    for (let i = 1; i < MAX_ATTEMPTS; i++) await deliverDueLogouts(env, (await deliveriesOf(app.id))[0].next_attempt_at);
    const [row] = await deliveriesOf(app.id);
    expect(row).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    expect(rp.received).toHaveLength(MAX_ATTEMPTS);
    const audits = await auditRows("backchannel_logout_failed", app.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ application_id: app.uid, attempts: MAX_ATTEMPTS });
    // Nothing more is sent.
    await deliverDueLogouts(env, row.next_attempt_at + 24 * 3600_000);
    expect(rp.received).toHaveLength(MAX_ATTEMPTS);
  });

  it("the outbound guard refuses a private or loopback address in production mode, without a request; development allows loopback", async () => {
    const production = withVars(env, { ALLOW_LOOPBACK_CLIENT_METADATA: "false" } as never);
    for (const uri of ["http://127.0.0.1:9/bc", "https://10.0.0.7/bc", "https://printer.local/bc"]) {
      // A row stored under another configuration (the guard runs again before every call).
      const { row: app } = await createApplication(getDb(env.DB), { name: unique("Private "), redirectUri: REDIRECT, scopes: OIDC_SCOPES, backchannelLogoutUri: uri });
      const now = Date.now();
      await env.DB.prepare(
        "INSERT INTO oidc_backchannel_logouts (application_id, user_id, sid, issuer, jti, status, attempts, next_attempt_at, created_at) VALUES (?, 1, ?, 'http://localhost', ?, 'pending', 0, ?, ?)",
      )
        .bind(app.id, unique("sid"), unique("jti"), now, now)
        .run();
      outboundCalls.length = 0;
      await deliverDueLogouts(production, now);
      expect(outboundCalls, uri).toEqual([]);
      const [row] = await deliveriesOf(app.id);
      expect(row.status).toBe("failed");
      expect(row.last_error).toMatch(/must (use https|name a public host)/);
      expect((await auditRows("backchannel_logout_failed", app.id))[0].reason).toMatch(/backchannel_logout_uri/);
    }
    // Development (ALLOW_LOOPBACK_CLIENT_METADATA true): loopback http is sent to.
    const loop = receiver(`http://127.0.0.1:9/${unique("bc")}`);
    const { row: app } = await createApplication(getDb(env.DB), { name: unique("Loopback "), redirectUri: REDIRECT, scopes: OIDC_SCOPES, backchannelLogoutUri: loop.url });
    const now = Date.now();
    await env.DB.prepare(
      "INSERT INTO oidc_backchannel_logouts (application_id, user_id, sid, issuer, jti, status, attempts, next_attempt_at, created_at) VALUES (?, 1, ?, 'http://localhost', ?, 'pending', 0, ?, ?)",
    )
      .bind(app.id, unique("sid"), unique("jti"), now, now)
      .run();
    await deliverDueLogouts(withVars(env, { ALLOW_LOOPBACK_CLIENT_METADATA: "true" } as never), now);
    expect(loop.received).toHaveLength(1);
    expect((await deliveriesOf(app.id))[0].status).toBe("delivered");
  });
});

describe("Signing out ends the grants that asked for it (node-oidc-provider's rule)", () => {
  it("grants issued in the session end, except one whose request asked for offline_access; other sessions' grants stay", async () => {
    const signedIn = await signedInUser();
    const bound = await oidcLogin("openid", {}, {}, signedIn);
    const offline = await oidcLogin("openid offline_access", {}, {}, signedIn);
    const plainOAuth = await oidcLogin("read_user", {}, {}, signedIn);
    await signedIn.browser.get("/profile/active_sessions");
    await signedIn.browser.post("/users/sign_out", {});
    const statuses = {
      bound: (await refresh(bound.app, bound.tokens.refresh_token!)).status,
      boundUserinfo: (await call("/oauth/userinfo", { token: bound.tokens.access_token })).status,
      offline: (await refresh(offline.app, offline.tokens.refresh_token!)).status,
      plainOAuth: (await refresh(plainOAuth.app, plainOAuth.tokens.refresh_token!)).status,
    };
    expect(statuses).toEqual({ bound: 400, boundUserinfo: 401, offline: 200, plainOAuth: 200 });
  });
});

describe("Back-Channel Logout 1.0 §2.2 and RP-Initiated Logout §3.1: client metadata", () => {
  it("dynamic registration stores and returns backchannel_logout_uri, backchannel_logout_session_required and post_logout_redirect_uris; a private back-channel URL is refused", async () => {
    const register = (body: unknown, ip: string) =>
      call("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip } });
    const url = bcUrl();
    const ok = await register({ redirect_uris: [REDIRECT], post_logout_redirect_uris: ["https://rp.example/bye"], backchannel_logout_uri: url, backchannel_logout_session_required: true }, "198.51.100.201");
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ post_logout_redirect_uris: ["https://rp.example/bye"], backchannel_logout_uri: url, backchannel_logout_session_required: true });
    const refused = await register({ redirect_uris: [REDIRECT], backchannel_logout_uri: "https://192.168.1.1/bc" }, "198.51.100.202");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_client_metadata" });
    const badType = await register({ redirect_uris: [REDIRECT], backchannel_logout_session_required: "yes" }, "198.51.100.203");
    expect(badType.status).toBe(400);
  });
});
