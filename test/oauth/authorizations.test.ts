import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deleteApplication } from "../../src/services/applications";
import { listAuthorizedApplications, revokeUserAuthorizationsForApplication } from "../../src/services/authorizations";
import { authorizationSubject, recordChange } from "../../src/services/changes/runner";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, call, getCode, makeApp, pkce, tokenRequest, type Tokens } from "./helpers";

async function grantFor(appRow: { uid: string }, browser: Awaited<ReturnType<typeof signedInUser>>["browser"], scope?: string) {
  const { verifier, challenge } = await pkce();
  const code = await getCode(browser, { client_id: appRow.uid, code_challenge: challenge, code_challenge_method: "S256", scope });
  const res = await tokenRequest({ grant_type: "authorization_code", client_id: appRow.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
  return (await res.json()) as Tokens;
}

describe("Authorized applications (exports for the account pages and the admin API)", () => {
  it("listAuthorizedApplications lists each application with a live grant once, scopes merged", async () => {
    const { app } = await makeApp({ confidential: false, scopes: ["api", "read_user"] });
    const { user, browser } = await signedInUser();
    expect(await listAuthorizedApplications(env, user.id)).toEqual([]);
    await grantFor(app, browser, "read_user");
    await grantFor(app, browser, "api");
    // A code that was never exchanged is not an authorization.
    await getCode(browser, { client_id: app.uid, code_challenge: (await pkce()).challenge, code_challenge_method: "S256" });
    const list = await listAuthorizedApplications(env, user.id);
    expect(list).toHaveLength(1);
    expect(list[0].application).toEqual({ id: app.id, uid: app.uid, name: app.name });
    expect(list[0].scopes.sort()).toEqual(["api", "read_user"]);
  });

  it("DESIGN Changes that finish: an application whose revocation is still pending is not listed; a grant made after it is", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const before = await grantFor(app, browser);
    // What a revocation stopped before its effects leaves: the intent, every grant still active in D1.
    expect(await recordChange(env, { kind: "authorization_revoked", subject: authorizationSubject(user.id, app.id), payload: { userId: user.id, applicationId: app.id }, audit: null })).toBe(true);
    expect(await listAuthorizedApplications(env, user.id)).toEqual([]);
    expect((await call("/api/v4/user", { token: before.access_token })).status).toBe(401);
    const after = await grantFor(app, browser);
    expect((await call("/api/v4/user", { token: after.access_token })).status).toBe(200);
    expect((await listAuthorizedApplications(env, user.id)).map((a) => a.application.id)).toEqual([app.id]);
  });

  it("revokeUserAuthorizationsForApplication revokes every grant of that user for that app at once", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const a = await grantFor(app, browser);
    const b = await grantFor(app, browser);
    const other = await signedInUser();
    const c = await grantFor(app, other.browser);
    expect(await revokeUserAuthorizationsForApplication(env, user.id, app.id)).toBe(2);
    for (const t of [a, b]) expect((await call("/api/v4/user", { token: t.access_token })).status).toBe(401);
    expect((await call("/api/v4/user", { token: c.access_token })).status).toBe(200);
    expect(await listAuthorizedApplications(env, user.id)).toEqual([]);
  });

  it("deleteApplication revokes every grant of the application (application deleted)", async () => {
    const { app } = await makeApp({ confidential: false });
    const one = await signedInUser();
    const two = await signedInUser();
    const a = await grantFor(app, one.browser);
    const b = await grantFor(app, two.browser);
    await deleteApplication(env, { id: one.user.id, ip: null }, app);
    for (const t of [a, b]) expect((await call("/oauth/token/info", { token: t.access_token })).status).toBe(401);
  });
});
