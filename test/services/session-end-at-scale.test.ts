import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApplication, type ApplicationRow } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { newFamilyId } from "../../src/credentials/oauth-token-format";
import { deliverDueLogouts } from "../../src/services/logout/backchannel";
import { signedInUser } from "../helpers/browser";
import { unique } from "../helpers/fixtures";
import { REDIRECT } from "../oauth/helpers";
import { installReceivers, receiver } from "../oidc/logout-helpers";

/**
 * DESIGN, "Changes that finish", at 1,000 records: a sign-out whose session authorised 1,000
 * grants, across 150 clients with a back-channel logout URL (more than D1's 100 bound parameters
 * a statement either way), revokes every session-bound grant and queues one delivery per client.
 */
const GRANTS = 1000;
const CLIENTS = 150;

beforeEach(installReceivers);
afterEach(() => vi.restoreAllMocks());

describe("Back-Channel Logout at 1,000 grants: a session's end fans out", { timeout: 180_000 }, () => {
  it("POST /users/sign_out revokes the session's 1,000 grants and queues one logout per client, all delivered", async () => {
    const { user, browser } = await signedInUser();
    const { sid } = (await env.DB.prepare("SELECT sid FROM sessions WHERE user_id = ?").bind(user.id).first<{ sid: string }>())!;
    const db = getDb(env.DB);
    const apps: ApplicationRow[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const url = `https://rp.example/${unique("bc")}`;
      receiver(url);
      apps.push((await createApplication(db, { name: unique("RP "), redirectUri: REDIRECT, scopes: ["openid"], backchannelLogoutUri: url })).row);
    }
    const now = Date.now();
    const rows = Array.from({ length: GRANTS }, (_, i) => ({
      id: newFamilyId(),
      applicationId: apps[i % CLIENTS].id,
      userId: user.id,
      grantType: "authorization_code",
      scopes: "openid",
      status: "active",
      createdAt: now,
      sid,
      endsWithSession: true,
    }));
    for (let i = 0; i < rows.length; i += 10) await db.insert(oauthTokenFamilies).values(rows.slice(i, i + 10));

    await browser.get("/profile/active_sessions");
    expect((await browser.post("/users/sign_out", {})).status).toBe(303);

    const live = await env.DB.prepare("SELECT count(*) AS n FROM oauth_token_families WHERE sid = ? AND status != 'revoked'").bind(sid).first<{ n: number }>();
    expect(live!.n).toBe(0);
    const queued = await env.DB.prepare("SELECT count(*) AS n FROM oidc_backchannel_logouts WHERE sid = ?").bind(sid).first<{ n: number }>();
    expect(queued!.n).toBe(CLIENTS);
    for (let round = 0; round < 10; round++) await deliverDueLogouts(env, Date.now(), 50);
    const delivered = await env.DB.prepare("SELECT count(*) AS n FROM oidc_backchannel_logouts WHERE sid = ? AND status = 'delivered'").bind(sid).first<{ n: number }>();
    expect(delivered!.n).toBe(CLIENTS);
  });
});
