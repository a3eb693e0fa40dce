import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createGroup } from "../../src/db/namespaces";
import { getDb } from "../../src/db/client";
import worker from "../../src/app";
import { signedInUser } from "../helpers/browser";
import { recordingEnv } from "../helpers/d1-recording";
import { REDIRECT, getCode, makeUser, pkce, refresh, setUser, tokenRequest, unique } from "../oauth/helpers";
import { oidcApp, oidcLogin, sessionStartedAt, verifyIdToken, type OidcTokens } from "./helpers";

describe("id_token from the code grant (OIDC Core §3.1.3.3, §2)", () => {
  it("§2: with openid, an RS256 id_token with kid, iss, aud = client_id, sub = user id, iat, exp (120 s), auth_time of the session, and GitLab's profile claims", async () => {
    const { app, user, tokens } = await oidcLogin("openid profile");
    expect(tokens.id_token).toBeTruthy();
    const claims = await verifyIdToken(tokens.id_token!, app.uid);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.aud).toBe(app.uid);
    expect(claims.exp! - claims.iat!).toBe(120);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(10);
    expect(claims.auth_time).toBe(Math.floor((await sessionStartedAt(user.id)) / 1000));
    expect(claims).toMatchObject({
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      profile: `http://localhost/${user.username}`,
      groups_direct: [],
    });
    expect(claims).not.toHaveProperty("nonce");
  });

  it("§3.1.2.1: the nonce sent to /oauth/authorize comes back in the id_token (carried through the consent form)", async () => {
    const nonce = unique("n-");
    const { app, tokens } = await oidcLogin("openid", { nonce });
    expect((await verifyIdToken(tokens.id_token!, app.uid)).nonce).toBe(nonce);
  });

  it("DESIGN: email and email_verified only with scope email", async () => {
    const without = await oidcLogin("openid profile");
    expect(await verifyIdToken(without.tokens.id_token!, without.app.uid)).not.toHaveProperty("email");
    const withEmail = await oidcLogin("openid email");
    const claims = await verifyIdToken(withEmail.tokens.id_token!, withEmail.app.uid);
    expect(claims.email).toBe(withEmail.user.email);
    expect(claims.email_verified).toBe(true);
  });

  it("GitLab: groups_direct lists the full paths of the groups the user is a direct member of", async () => {
    const { app, user, browser } = await oidcLogin("openid");
    const db = getDb(env.DB);
    const parent = await createGroup(db, { name: "P", path: unique("p"), parent: null, visibility: "private", description: "", ownerId: user.id });
    // Owned by someone else: the user reaches it through the parent only, so it is not direct.
    const other = await makeUser();
    await createGroup(db, { name: "C", path: "child", parent, visibility: "private", description: "", ownerId: other.id });
    const again = await oidcLogin("openid", {}, { uid: undefined }, { user, browser });
    expect((await verifyIdToken(again.tokens.id_token!, again.app.uid)).groups_direct).toEqual([parent.fullPath]);
    expect(app.uid).not.toBe(again.app.uid);
  });

  it("the code exchange signs the claims recorded at approval (no D1 read of the profile or groups); a refresh reads them afresh", async () => {
    const { app } = await oidcApp();
    const { user, browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, scope: "openid", code_challenge: challenge, code_challenge_method: "S256" });
    await setUser(user.id, { name: "Renamed After Approval" });
    // Every statement the two requests send to the real D1, recorded (test/helpers/d1-recording.ts).
    const { env: recording, statements } = recordingEnv();
    const fetcher = async (path: string, init: RequestInit = {}) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`http://localhost${path}`, init), recording, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const readsClaims = () => statements.filter((s) => /\bfrom\s+members\b/i.test(s.sql));
    const usersRead = () => statements.filter((s) => /^select\b.*\bfrom\s+"users"/is.test(s.sql));
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier }, { fetcher });
    const tokens = (await res.json()) as OidcTokens;
    expect((await verifyIdToken(tokens.id_token!, app.uid)).name).toBe(user.name);
    // The exchange reads the user row once, for its state (DESIGN, Blocked and deactivated users),
    // and no group membership: the claims are the ones recorded at approval.
    expect(readsClaims()).toEqual([]);
    expect(usersRead()).toHaveLength(1);
    statements.length = 0;
    const next = (await (await tokenRequest({ grant_type: "refresh_token", client_id: app.uid, refresh_token: tokens.refresh_token }, { fetcher })).json()) as OidcTokens;
    expect((await verifyIdToken(next.id_token!, app.uid)).name).toBe("Renamed After Approval");
    // The refresh reads the groups afresh, which the recorder sees: the check above can fail.
    expect(readsClaims().length).toBeGreaterThanOrEqual(1);
  });

  it("§3.1.3.3: without openid in the scope there is no id_token", async () => {
    const { tokens } = await oidcLogin("api");
    expect(tokens).not.toHaveProperty("id_token");
  });

  it("§12.2: a refresh returns a new id_token with the same sub, iss and aud, the original auth_time, and no nonce", async () => {
    const { app, tokens } = await oidcLogin("openid", { nonce: "first" });
    const first = await verifyIdToken(tokens.id_token!, app.uid);
    const res = await refresh(app, tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = (await res.json()) as OidcTokens;
    const claims = await verifyIdToken(next.id_token!, app.uid);
    expect(claims.sub).toBe(first.sub);
    expect(claims.auth_time).toBe(first.auth_time);
    expect(claims).not.toHaveProperty("nonce");
  });
});
