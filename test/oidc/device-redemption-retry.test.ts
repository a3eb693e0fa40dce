import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { findDeviceGrantByDeviceCode } from "../../src/db/device-grants";
import { redeemWithAnswer } from "../../src/oauth/grants/device-code";
import { signedInUser } from "../helpers/browser";
import { call } from "../oauth/helpers";
import { enterCode, errorOf, poll, start } from "./device-helpers";

/**
 * DESIGN, "Changes that finish": device redemption and issuance are one step. The poll that
 * redeems stores its sealed answer in the redeeming statement, so a poll retried after the first
 * died between redeeming and issuing (or lost its answer) gets the same tokens, once, while they
 * are unused and within REFRESH_GRACE_SECONDS (60 s here).
 */
async function approved() {
  const s = await start();
  const { user, browser } = await signedInUser();
  await enterCode(browser, s.auth.user_code);
  const grant = (await findDeviceGrantByDeviceCode(env.DB, s.auth.device_code))!;
  return { ...s, user, grant };
}
const familiesOf = async (appId: number) =>
  (await env.DB.prepare("SELECT id FROM oauth_token_families WHERE application_id = ?").bind(appId).all<{ id: string }>()).results.map((r) => r.id);
const issuedAudits = async (fid: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'token_issued' AND entity_id = ?").bind(fid).first<{ n: number }>())!.n;

describe("device code: redemption and issuance are one step (DESIGN, Changes that finish)", () => {
  it("a poll retried after the redeeming poll died before issuing gets the tokens it minted, issued once", async () => {
    const { app, auth, grant } = await approved();
    // The first poll redeemed the code and died before the family existed.
    const minted = (await redeemWithAnswer(env, grant, auth.device_code, Date.now()))!;
    expect(await familiesOf(app.id)).toEqual([]);
    const res = await poll(app.uid, auth.device_code);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    expect(tokens.access_token).toBe(minted.token);
    expect(tokens.refresh_token).toBe(minted.refresh);
    expect(await familiesOf(app.id)).toEqual([minted.fid]);
    expect(await issuedAudits(minted.fid)).toBe(1);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
  });

  it("a poll retried after its answer was lost gets the same answer, without a second family or audit row; once the tokens are used the code is spent", async () => {
    const { app, auth } = await approved();
    const first = (await (await poll(app.uid, auth.device_code)).json()) as { access_token: string; refresh_token: string };
    const again = await poll(app.uid, auth.device_code);
    expect(again.status).toBe(200);
    const second = (await again.json()) as { access_token: string; refresh_token: string };
    expect(second.access_token).toBe(first.access_token);
    expect(second.refresh_token).toBe(first.refresh_token);
    const families = await familiesOf(app.id);
    expect(families).toHaveLength(1);
    expect(await issuedAudits(families[0])).toBe(1);
    expect((await call("/api/v4/user", { token: first.access_token })).status).toBe(200);
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("invalid_grant");
  });

  it("after REFRESH_GRACE_SECONDS the redeemed code is spent: invalid_grant", async () => {
    const { app, auth, grant } = await approved();
    await redeemWithAnswer(env, grant, auth.device_code, Date.now());
    await env.DB.prepare("UPDATE oauth_device_grants SET redeemed_at = redeemed_at - 61000 WHERE id = ?").bind(grant.id).run();
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("invalid_grant");
    expect(await familiesOf(app.id)).toEqual([]);
  });

  it("a person blocked between the redemption and the retry gets nothing", async () => {
    const { app, auth, grant, user } = await approved();
    await redeemWithAnswer(env, grant, auth.device_code, Date.now());
    await env.DB.prepare("UPDATE users SET state = 'blocked' WHERE id = ?").bind(user.id).run();
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("invalid_grant");
    expect(await familiesOf(app.id)).toEqual([]);
  });

  it("the sealed answer opens only with the device code: nothing stored is a token", async () => {
    const { auth, grant } = await approved();
    const minted = (await redeemWithAnswer(env, grant, auth.device_code, Date.now()))!;
    const row = (await env.DB.prepare("SELECT sealed_response AS sealed FROM oauth_device_grants WHERE id = ?").bind(grant.id).first<{ sealed: string }>())!;
    expect(row.sealed).toBeTruthy();
    expect(row.sealed).not.toContain(minted.token);
    expect(row.sealed).not.toContain(minted.fid);
  });
});
