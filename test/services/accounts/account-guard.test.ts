import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyPasswordLogin } from "../../../src/services/accounts/password-login";
import { base32Decode, totp } from "../../../src/crypto/totp";
import { Browser, textOf } from "../../helpers/browser";
import { TEST_PASSWORD, call, callFrom, makeUser, makeUserWithToken } from "../../helpers/fixtures";

/**
 * docs/security.md, "Account-wide bound": failures of one account count over every address; once
 * the budget (50 passwords, 10 second-factor codes an hour by default) is spent, only addresses
 * the account signed in from before may try, so the owner at their usual address is not locked out.
 */
const OWNER = "198.51.100.7";
/** The n-th attacker address: a /64 of its own in one IPv6 /48 (each /64 counts apart per address). */
const attacker = (n: number) => `2001:db8:77:${n.toString(16)}::1`;

const audits = async (action: string, userId: number) =>
  (
    await env.DB.prepare("SELECT details FROM audit_events WHERE action = ? AND entity_id = ? ORDER BY id")
      .bind(action, String(userId))
      .all<{ details: string }>()
  ).results.map((r) => JSON.parse(r.details) as Record<string, unknown>);

const code = (secret: string, offset = 0) => totp(base32Decode(secret), Date.now() / 1000 + offset * 30);

describe("account-wide bound on failed passwords (docs/security.md, Account-wide bound)", () => {
  it("past 50 failures from many /64s, no address the account never signed in from has its password checked; the owner's usual address still signs in; an administrator's unlock lifts it", async () => {
    const user = await makeUser();
    // The owner signs in once from their usual address: it is a known address from then on.
    expect((await verifyPasswordLogin(env, user.username, TEST_PASSWORD, OWNER)).id).toBe(user.id);
    // 6 addresses x 9 wrong passwords: each stays under the per-address lock of 10.
    for (let a = 0; a < 6; a++) {
      for (let i = 0; i < 9; i++) await expect(verifyPasswordLogin(env, user.username, `guess-${a}-${i}`, attacker(a))).rejects.toMatchObject({ details: { reason: "invalid" } });
    }
    // The budget is spent: the right password from a fresh /64 is answered as a wrong one.
    await expect(verifyPasswordLogin(env, user.username, TEST_PASSWORD, attacker(100))).rejects.toMatchObject({ details: { reason: "invalid" } });
    // The owner from their usual address is not locked out.
    expect((await verifyPasswordLogin(env, user.username, TEST_PASSWORD, OWNER)).id).toBe(user.id);
    // Audited once, on the account.
    const guarded = await audits("account_guarded", user.id);
    expect(guarded).toHaveLength(1);
    expect(guarded[0]).toMatchObject({ method: "password", failures: 50, window_seconds: 3600 });
    // Refused attempts are not evaluated, so they are not audited as failed sign-ins one by one.
    const failed = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'failed_sign_in' AND entity_id = ?").bind(String(user.id)).first<{ n: number }>();
    expect(failed!.n).toBe(50);

    const { token } = await makeUserWithToken({ isAdmin: true });
    expect((await call(`/api/v4/users/${user.id}/unlock`, { method: "POST", token })).status).toBe(201);
    expect((await verifyPasswordLogin(env, user.username, TEST_PASSWORD, attacker(100))).id).toBe(user.id);
  });

  it("the password grant obeys the same bound (one check for every password entry point)", async () => {
    const user = await makeUser();
    for (let a = 0; a < 10; a++) {
      for (let i = 0; i < 5; i++) await verifyPasswordLogin(env, user.username, `guess-${a}-${i}`, attacker(200 + a)).catch(() => undefined);
    }
    const grant = await callFrom(attacker(300))("/oauth/token", {
      method: "POST",
      body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD }),
    });
    expect(grant.status).toBe(400);
    expect(((await grant.json()) as { error: string }).error).toBe("invalid_grant");
  });
});

describe("account-wide ceiling on failed second-factor codes (docs/security.md, Account-wide bound)", () => {
  async function enrolledUser() {
    const user = await makeUser();
    const owner = new Browser(callFrom(OWNER));
    expect((await owner.signIn(user.username, TEST_PASSWORD)).status).toBe(303);
    const html = await (await owner.get("/profile/two_factor_auth")).text();
    const secret = /data-secret="([A-Z2-7]+)"/.exec(html)![1];
    expect((await owner.post("/profile/two_factor_auth", { pin_code: await code(secret), current_password: TEST_PASSWORD })).status).toBeLessThan(400);
    return { user, secret };
  }

  /** A browser at `ip` that has passed the password step (the attacker knows the password). */
  async function pastPassword(username: string, ip: string): Promise<Browser> {
    const b = new Browser(callFrom(ip));
    const res = await b.signIn(username, TEST_PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toContain("/users/sign_in/two_factor");
    await b.get("/users/sign_in/two_factor");
    return b;
  }

  it("after 10 wrong codes over many addresses every pending second-factor step ends and is audited; a new address with the password and the right code is refused; the owner's usual address signs in", async () => {
    const { user, secret } = await enrolledUser();
    const waiting = await pastPassword(user.username, attacker(400));
    // 5 addresses x 2 wrong codes: each stays far under the per-address lock.
    let last: Response | undefined;
    for (let a = 0; a < 5; a++) {
      const b = await pastPassword(user.username, attacker(500 + a));
      for (let i = 0; i < 2; i++) {
        last = await b.post("/users/sign_in/two_factor", { otp_attempt: String(100000 + a * 10 + i) });
        if (a < 4 || i === 0) expect(textOf(await last.clone().text())).toContain("Invalid two-factor code.");
      }
    }
    // The 10th wrong code ended that pending sign-in: back to the password form.
    expect(last!.status).toBe(401);
    expect(textOf(await last!.text())).toContain("Invalid username or password.");
    // ...and every other pending one: this browser passed the password step before.
    const ended = await waiting.post("/users/sign_in/two_factor", { otp_attempt: await code(secret, 1) });
    expect(ended.status).toBe(401);
    expect(textOf(await ended.text())).toContain("Sign in again.");
    const guarded = await audits("account_guarded", user.id);
    expect(guarded).toHaveLength(1);
    expect(guarded[0]).toMatchObject({ method: "two_factor", failures: 10, pending_sign_ins_ended: 6 });

    // A fresh address with the password and even the right code does not get in.
    const fresh = await pastPassword(user.username, attacker(600));
    const refused = await fresh.post("/users/sign_in/two_factor", { otp_attempt: await code(secret, 1) });
    expect(refused.status).toBe(401);
    expect((await fresh.get("/profile/two_factor_auth")).status).not.toBe(200);

    // The owner at their usual address signs in with the same code (it was never spent).
    const owner = await pastPassword(user.username, OWNER);
    const ok = await owner.post("/users/sign_in/two_factor", { otp_attempt: await code(secret, 1) });
    expect(ok.status).toBe(303);
    expect((await owner.get("/profile/two_factor_auth")).status).toBe(200);
  });
});
