import { describe, expect, it } from "vitest";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { pkceTokens, setUser } from "../oauth/helpers";
import { VALIDATION_CACHE_SETTINGS, callWithValidationCache } from "../helpers/validation-cache";

/** Issue 12, "Account controls": GitLab's user moderation API and what it does to each credential. */
async function admin() {
  return makeUserWithToken({ isAdmin: true });
}
const act = (id: number, action: string, token: string) => call(`/api/v4/users/${id}/${action}`, { method: "POST", token });
const pageStatus = async (browser: Browser) => (await browser.get("/profile/personal_access_tokens")).status;

describe("POST /api/v4/users/:id/block (GitLab user moderation API)", () => {
  it("answers 201 true, then 201 null for a user already blocked; the user shows state blocked", async () => {
    const { token } = await admin();
    const user = await makeUser();
    const first = await act(user.id, "block", token);
    expect(first.status).toBe(201);
    expect(await first.json()).toBe(true);
    const again = await act(user.id, "block", token);
    expect(again.status).toBe(201);
    expect(await again.json()).toBeNull();
    const shown = (await (await call(`/api/v4/users/${user.id}`, { token })).json()) as { state: string };
    expect(shown.state).toBe("blocked");
  });

  it("ends the user's browser sessions at once", async () => {
    const { token } = await admin();
    const { user, browser } = await signedInUser();
    expect(await pageStatus(browser)).toBe(200);
    await act(user.id, "block", token);
    expect(await pageStatus(browser)).toBe(302);
  });

  it("sign-in tells a blocked user why, in GitLab's words, and the password grant refuses", async () => {
    const { token } = await admin();
    const user = await makeUser();
    await act(user.id, "block", token);
    const res = await new Browser().signIn(user.username, TEST_PASSWORD);
    expect(res.status).toBe(403);
    expect(textOf(await res.text())).toContain("Your account has been blocked. Please contact your GitLab administrator if you think this is an error.");
    const grant = await call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD }) });
    expect(grant.status).toBe(400);
  });

  it("refuses non-administrators (403), unknown users (404 User Not Found) and blocking oneself (403)", async () => {
    const { user: plain, token: plainToken } = await makeUserWithToken();
    const { user: root, token } = await admin();
    expect((await act(plain.id, "block", plainToken)).status).toBe(403);
    const missing = await act(99_999_999, "block", token);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "404 User Not Found" });
    const self = await act(root.id, "block", token);
    expect(self.status).toBe(403);
    expect(await self.json()).toEqual({ message: "403 Forbidden - The API initiating user cannot be blocked by the API" });
  });

  it("unblocking a user who is not blocked answers 201 false", async () => {
    const { token } = await admin();
    const user = await makeUser();
    const res = await act(user.id, "unblock", token);
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(false);
  });
});

describe("an administrator's account actions never target their own account (the rule of block, for every action)", () => {
  it("deactivate, block, unblock, activate and unlock of oneself are refused (403) and change nothing", async () => {
    const { user: root, token } = await admin();
    for (const action of ["deactivate", "block", "unblock", "activate", "unlock"]) {
      const res = await act(root.id, action, token);
      expect(res.status, action).toBe(403);
      expect(((await res.json()) as { message: string }).message, action).toMatch(/^403 Forbidden - The API initiating user cannot be \w+ by the API$/);
    }
    const shown = (await (await call(`/api/v4/users/${root.id}`, { token })).json()) as { state: string };
    expect(shown.state).toBe("active");
    expect((await call("/api/v4/user", { token })).status).toBe(200);
  });

  it("under Sudo the initiating administrator is the one protected: deactivating them while acting as another administrator is refused", async () => {
    const { user: root } = await admin();
    const other = await makeUser({ isAdmin: true });
    const sudoToken = await makePat(root.id, ["api", "sudo"]);
    const res = await call(`/api/v4/users/${root.id}/deactivate`, { method: "POST", token: sudoToken, headers: { Sudo: other.username } });
    expect(res.status).toBe(403);
    expect((await call("/api/v4/user", { token: sudoToken })).status).toBe(200);
  });

  it("the admin page's Deactivate of one's own account is refused with the same sentence", async () => {
    const root = await makeUser({ isAdmin: true });
    const b = new Browser();
    expect((await b.signIn(root.username, TEST_PASSWORD)).status).toBe(303);
    await b.get(`/admin/users/${root.username}`);
    const res = await b.post(`/admin/users/${root.username}/deactivate`, {});
    expect(res.status).toBe(303);
    expect(textOf(await (await b.get(res.headers.get("location")!)).text())).toContain("The API initiating user cannot be deactivated by the API");
    expect((await b.get("/profile/personal_access_tokens")).status).toBe(200);
  });
});

describe("POST /api/v4/users/:id/deactivate and /activate (GitLab user moderation API)", () => {
  it("refuses a user active in the past 90 days with GitLab's message", async () => {
    const { token } = await admin();
    const { user } = await signedInUser();
    const res = await act(user.id, "deactivate", token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: "403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated" });
  });

  it("a deactivated user who signs in on the web is active again (GitLab)", async () => {
    const { token } = await admin();
    const user = await makeUser();
    const pat = await makePat(user.id);
    expect((await act(user.id, "deactivate", token)).status).toBe(201);
    const res = await new Browser().signIn(user.username, TEST_PASSWORD, "/");
    expect(res.status).toBe(303);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
  });

  it("refuses to deactivate or activate a blocked user with GitLab's messages", async () => {
    const { token } = await admin();
    const user = await makeUser();
    await act(user.id, "block", token);
    const deactivate = await act(user.id, "deactivate", token);
    expect(deactivate.status).toBe(403);
    expect(await deactivate.json()).toEqual({ message: "403 Forbidden - A blocked user cannot be deactivated by the API" });
    const activate = await act(user.id, "activate", token);
    expect(activate.status).toBe(403);
    expect(await activate.json()).toEqual({ message: "403 Forbidden - A blocked user must be unblocked to be activated" });
  });
});

describe("GET /api/v4/users?blocked=true / ?active=true (GitLab filters)", () => {
  it("lists only blocked or only active users", async () => {
    const { token } = await admin();
    const blocked = await makeUser();
    const active = await makeUser();
    await act(blocked.id, "block", token);
    const ids = async (q: string) => ((await (await call(`/api/v4/users?per_page=100&search=${q}`, { token })).json()) as { id: number; state: string }[]);
    const onlyBlocked = (await ids(`${blocked.username}&blocked=true`)).map((u) => u.id);
    expect(onlyBlocked).toEqual([blocked.id]);
    expect(await ids(`${active.username}&blocked=true`)).toEqual([]);
    expect((await ids(`${blocked.username}&active=true`)).map((u) => u.id)).toEqual([]);
    expect((await ids(`${active.username}&active=true`)).map((u) => u.id)).toEqual([active.id]);
  });
});

/**
 * Block and deactivation take access away at once, with the validation cache on (each token was
 * used first, so the isolate remembers it; the action answers only after the bound, DESIGN
 * "Validation cache") and off.
 */
describe.each(VALIDATION_CACHE_SETTINGS)("account controls end access at once ($setting)", ({ seconds }) => {
  const call = callWithValidationCache(seconds);
  const act = (id: number, action: string, token: string) => call(`/api/v4/users/${id}/${action}`, { method: "POST", token });
  const refresh = (app: { uid: string }, refreshToken: string) => call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", client_id: app.uid, refresh_token: refreshToken }) });

  it("stops the user's OAuth access and refresh tokens at once, and unblock does not bring them back", async () => {
    const { token } = await admin();
    const { user, app, tokens } = await pkceTokens();
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    await act(user.id, "block", token);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
    await act(user.id, "unblock", token);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
  });

  it("stops the user's personal access tokens while blocked; unblock restores them (GitLab keeps them)", async () => {
    const { token } = await admin();
    const { user, token: pat } = await makeUserWithToken();
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
    await act(user.id, "block", token);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(401);
    const unblocked = await act(user.id, "unblock", token);
    expect(unblocked.status).toBe(201);
    expect(await unblocked.json()).toBe(true);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
  });

  it("deactivates a dormant user: sessions end, PATs stop; activate restores the PATs", async () => {
    const { token } = await admin();
    const { user, browser } = await signedInUser();
    await setUser(user.id, { lastSignInAt: Date.now() - 91 * 86_400_000 });
    const pat = await makePat(user.id);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
    const res = await act(user.id, "deactivate", token);
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    expect((await act(user.id, "deactivate", token)).status).toBe(201);
    expect(await pageStatus(browser)).toBe(302);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(401);
    const unblock = await act(user.id, "unblock", token);
    expect(unblock.status).toBe(403);
    expect(await unblock.json()).toEqual({ message: "403 Forbidden - Deactivated users cannot be unblocked by the API" });
    const activated = await act(user.id, "activate", token);
    expect(activated.status).toBe(201);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
  });
});
