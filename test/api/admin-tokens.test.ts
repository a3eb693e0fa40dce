import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { Browser } from "../helpers/browser";
import { issueEveryKind } from "../helpers/every-token-kind";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { refresh } from "../oauth/helpers";

/** GitLab's Token information API: POST and DELETE /api/v4/admin/token (docs/credentials.md). */
const admin = await makeUserWithToken({ isAdmin: true });

const identify = (token: string, as = admin.token) => call("/api/v4/admin/token", { ...json({ token }), token: as });
const revoke = (token: string, as = admin.token) => call("/api/v4/admin/token", { ...json({ token }), method: "DELETE", token: as });

async function auditedByAdmin(action: string): Promise<number> {
  const rows = await getDb(env.DB).select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.authorId, admin.user.id)));
  return rows.length;
}

/** DELETE answers 204 and writes one more audit row of `action` authored by the administrator. */
async function expectRevoked(token: string, action: string) {
  const before = await auditedByAdmin(action);
  const res = await revoke(token);
  expect(res.status, action).toBe(204);
  expect(await auditedByAdmin(action), action).toBeGreaterThan(before);
}

describe("GitLab Token information API: POST /admin/token identifies a token of any kind", () => {
  it("each kind answers GitLab's entity of its record (PAT, deploy token, application, runner, user) or, for OAuth tokens, the grant's facts", async () => {
    const t = await issueEveryKind();
    const pat = (await (await identify(t.personal_access_token)).json()) as Record<string, unknown>;
    expect(pat).toMatchObject({ revoked: false, active: true, scopes: ["api"] });
    const access = (await (await identify(t.oauth_access_token)).json()) as Record<string, unknown>;
    expect(access).toMatchObject({ token_type: "oauth_access_token", active: true });
    expect(access.application_id).toBeTruthy();
    const refreshInfo = (await (await identify(t.oauth_refresh_token)).json()) as Record<string, unknown>;
    expect(refreshInfo).toMatchObject({ token_type: "oauth_refresh_token", expires_at: null, active: true });
    expect((await (await identify(t.deploy_token)).json()) as Record<string, unknown>).toMatchObject({ name: "leak", revoked: false, scopes: ["read_repository"] });
    expect(((await (await identify(t.oauth_application_secret)).json()) as Record<string, unknown>).application_id).toBeTruthy();
    const registration = (await (await identify(t.registration_access_token)).json()) as Record<string, unknown>;
    expect(String(registration.application_name)).toContain("leaky");
    expect(((await (await identify(t.runner_authentication_token)).json()) as Record<string, unknown>).runner_type).toBe("project_type");
    const sessionUser = (await (await identify(t.session_cookie)).json()) as Record<string, unknown>;
    expect(sessionUser.username).toBeTruthy();
    // The bare cookie value is found too.
    expect((await identify(t.session_cookie.split("=")[1])).status).toBe(200);
  });

  it("404 for a value no token has, 422 for a runner registration token (not handled, as in GitLab), 400 without token", async () => {
    const t = await issueEveryKind();
    for (const unknown of [`glpat-${"0".repeat(64)}`, `gloat-1.${"A".repeat(22)}.${"B".repeat(43)}`, `gldt-${"1".repeat(64)}`, `glrat-${"2".repeat(64)}`, "not-a-token"]) {
      const res = await identify(unknown);
      expect(res.status, unknown).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe("404 Not Found");
    }
    const registration = await identify(t.runner_registration_token);
    expect(registration.status).toBe(422);
    expect((await revoke(t.runner_registration_token)).status).toBe(422);
    const missing = await call("/api/v4/admin/token", { ...json({}), token: admin.token });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "token is missing" });
  });

  it("administrators only: 401 without a credential, 403 for a user who is not an administrator (even for the user's own token)", async () => {
    const user = await makeUserWithToken();
    expect((await call("/api/v4/admin/token", json({ token: user.token }))).status).toBe(401);
    expect((await identify(user.token, user.token)).status).toBe(403);
    expect((await revoke(user.token, user.token)).status).toBe(403);
  });
});

describe("GitLab Token information API: DELETE /admin/token revokes or resets by kind, audited", () => {
  it("revoke: personal access token, OAuth access token (its grant), deploy token; each stops working at once", async () => {
    const t = await issueEveryKind();
    await expectRevoked(t.personal_access_token, "personal_access_token_revoked");
    expect((await call("/api/v4/user", { token: t.personal_access_token })).status).toBe(401);
    expect(((await (await identify(t.personal_access_token)).json()) as { revoked: boolean }).revoked).toBe(true);

    await expectRevoked(t.oauth_access_token, "token_revoked");
    expect((await call("/api/v4/user", { token: t.oauth_access_token })).status).toBe(401);
    expect(((await (await identify(t.oauth_access_token)).json()) as { active: boolean }).active).toBe(false);

    await expectRevoked(t.deploy_token, "deploy_token_revoked");
    expect((await identify(t.deploy_token)).status).toBe(404);
  });

  it("revoke an OAuth refresh token: its grant ends, the refresh is refused", async () => {
    const t = await issueEveryKind();
    await expectRevoked(t.oauth_refresh_token, "token_revoked");
    const app = ((await (await identify(t.oauth_access_token)).json()) as { application_id: string }).application_id;
    expect((await refresh({ uid: app }, t.oauth_refresh_token)).status).toBe(400);
    expect((await call("/api/v4/user", { token: t.oauth_access_token })).status).toBe(401);
  });

  it("reset an OAuth application secret (the new one is shown to nobody), revoke a registration access token, unregister a runner, end a session", async () => {
    const t = await issueEveryKind();
    await expectRevoked(t.oauth_application_secret, "application_secret_renewed");
    expect((await identify(t.oauth_application_secret)).status).toBe(404);

    await expectRevoked(t.registration_access_token, "registration_access_token_revoked");
    expect((await call(t.clientUri, { headers: { Authorization: `Bearer ${t.registration_access_token}` } })).status).toBe(401);

    await expectRevoked(t.runner_authentication_token, "ci_runner_unregistered");
    expect((await identify(t.runner_authentication_token)).status).toBe(404);

    const browser = new Browser();
    browser.cookies.set("_edge_auth_session", t.session_cookie.split("=")[1]);
    expect((await browser.get("/profile/applications")).status).toBe(200);
    await expectRevoked(t.session_cookie, "session_revoked");
    const page = await browser.get("/profile/applications");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toContain("/users/sign_in");
  });

  it("404 for a token already ended: a second DELETE of a deleted deploy token finds nothing", async () => {
    const t = await issueEveryKind();
    expect((await revoke(t.deploy_token)).status).toBe(204);
    expect((await revoke(t.deploy_token)).status).toBe(404);
  });
});
