import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordChange, userSubject } from "../../src/services/changes/runner";
import { Browser, textOf } from "../helpers/browser";
import { pendingFor, sweepUntilDone } from "../helpers/changes";
import { call, makePat, makeUser, TEST_PASSWORD } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * docs/operations.md, "Sessions, passwords and two-factor settings": "Sign out everywhere" on
 * /profile/active_sessions ends every other browser session and every OAuth grant made until then
 * (a change that finishes: intent and audit row in one batch, finished by a retry or the cron
 * sweep, refused from the answer on); this browser and personal access tokens stay.
 */
const GRANTS = 1000;
const ACTION = "/profile/active_sessions";
const signedIn = async (b: Browser) => (await b.get("/profile/active_sessions")).status === 200;
const status = async (token: string) => (await call("/api/v4/user", { token })).status;
const liveGrants = async (userId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM oauth_token_families WHERE user_id = ? AND status != 'revoked'").bind(userId).first<{ n: number }>())!.n;
const audits = async (userId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'signed_out_everywhere' AND entity_id = ?").bind(String(userId)).first<{ n: number }>())!.n;

async function userWithEverything(grants: number) {
  const user = await makeUser();
  const laptop = new Browser();
  const phone = new Browser();
  expect((await laptop.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
  expect((await phone.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
  const { app } = await makeApp();
  const { tokens } = await seedGrants(user.id, app, grants);
  const pat = await makePat(user.id, ["api"]);
  for (const t of [...tokens, pat]) expect(await status(t)).toBe(200);
  return { user, laptop, phone, app, tokens, pat };
}

describe("Sign out everywhere on /profile/active_sessions (a change that finishes, at 1,000 grants)", { timeout: 240_000 }, () => {
  it("the page offers it behind a confirmation", async () => {
    const { laptop } = await userWithEverything(1);
    const html = await (await laptop.get("/profile/active_sessions")).text();
    expect(html).toContain(`action="${ACTION}"`);
    expect(html).toContain('data-confirm="Are you sure? Every other browser, application and device will be signed out of GitLab."');
  });

  it("ends the other browser and every one of 1,000 grants when it answers, keeps this browser and the PAT, is audited once; a grant made afterwards survives the sweep", async () => {
    const c = await userWithEverything(GRANTS);
    const res = await c.laptop.post(ACTION, {});
    expect(res.status).toBe(303);
    // The flash is shown once, on the page the answer sends this browser back to.
    expect(textOf(await (await c.laptop.get("/profile/active_sessions")).text())).toContain("You were signed out everywhere else.");
    expect(await signedIn(c.phone)).toBe(false);
    expect(await signedIn(c.laptop)).toBe(true);
    for (const t of c.tokens) expect(await status(t)).toBe(401);
    expect(await status(c.pat)).toBe(200);
    expect(await audits(c.user.id)).toBe(1);

    const { tokens: after } = await seedGrants(c.user.id, c.app, 1, 1);
    await sweepUntilDone(userSubject(c.user.id));
    expect(await liveGrants(c.user.id)).toBe(1);
    expect(await status(after[0])).toBe(200);
    expect(await audits(c.user.id)).toBe(1);
    expect(textOf(await (await c.laptop.get("/profile/authentication_log")).text())).toContain("Signed out everywhere else");
  });

  it("refuses a POST without the CSRF token (403) and ends nothing", async () => {
    const c = await userWithEverything(3);
    expect((await c.laptop.post(ACTION, {}, { csrf: false })).status).toBe(403);
    expect(await signedIn(c.phone)).toBe(true);
    for (const t of c.tokens) expect(await status(t)).toBe(200);
    expect(await pendingFor(userSubject(c.user.id))).toBe(0);
  });

  it("an interrupted sign-out (intent and audit row written, no effect yet) is finished by the cron sweep", async () => {
    const c = await userWithEverything(120);
    const recorded = await recordChange(env, {
      kind: "sign_out_everywhere",
      subject: userSubject(c.user.id),
      payload: { userId: c.user.id, keepSessionIdHash: null, actor: { id: c.user.id, ip: null } },
      audit: { action: "signed_out_everywhere", actor: { id: c.user.id, ip: null }, entityType: "user", entityId: c.user.id },
    });
    expect(recorded).toBe(true);
    expect(await audits(c.user.id)).toBe(1);
    await sweepUntilDone(userSubject(c.user.id));
    expect(await liveGrants(c.user.id)).toBe(0);
    expect(await signedIn(c.phone)).toBe(false);
    expect(await signedIn(c.laptop)).toBe(false);
    for (const t of c.tokens) expect(await status(t)).toBe(401);
    expect(await status(c.pat)).toBe(200);
  });
});
