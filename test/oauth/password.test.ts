import { describe, expect, it } from "vitest";
import { callFrom } from "../helpers/fixtures";
import { TEST_PASSWORD, call, makeApp, makeUser, setUser, tokenRequest } from "./helpers";

const grant = (username: string, password = TEST_PASSWORD, extra: Record<string, string> = {}, basic?: [string, string]) =>
  tokenRequest({ grant_type: "password", username, password, ...extra }, { basic });

async function expectInvalidGrant(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
}

describe("POST /oauth/token grant_type=password (spec, Authentication 3)", () => {
  it("spec: username and password give a token with scope api by default, without refresh_token and created_at", async () => {
    const user = await makeUser();
    const res = await grant(user.username);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.token_type).toBe("bearer");
    expect(body.scope).toBe("api");
    expect(body.expires_in).toBe(7200);
    expect(body).not.toHaveProperty("refresh_token");
    expect(body).not.toHaveProperty("created_at");
    const me = await call("/api/v4/user", { token: body.access_token as string });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  });

  it("spec: the registered application may authenticate with HTTP Basic; its scopes limit the token's", async () => {
    const user = await makeUser();
    const { app, secret } = await makeApp({ scopes: ["read_user"] });
    const ok = await grant(user.username, TEST_PASSWORD, { scope: "read_user" }, [app.uid, secret]);
    expect(ok.status).toBe(200);
    const info = await call("/oauth/token/info", { token: ((await ok.json()) as { access_token: string }).access_token });
    expect(((await info.json()) as { application: { uid: string } }).application.uid).toBe(app.uid);
    const tooMuch = await grant(user.username, TEST_PASSWORD, { scope: "api" }, [app.uid, secret]);
    expect(tooMuch.status).toBe(400);
    expect(((await tooMuch.json()) as { error: string }).error).toBe("invalid_scope");
    const wrongSecret = await grant(user.username, TEST_PASSWORD, {}, [app.uid, "gloas-wrong"]);
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get("www-authenticate")).toMatch(/^Basic/);
  });

  it("DESIGN: an unknown scope is invalid_scope", async () => {
    const user = await makeUser();
    const res = await grant(user.username, TEST_PASSWORD, { scope: "api admin_everything" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_scope");
  });

  it("DESIGN: a wrong password or unknown user is invalid_grant; missing parameters are invalid_request", async () => {
    const user = await makeUser();
    await expectInvalidGrant(await grant(user.username, "wrong password!"));
    await expectInvalidGrant(await grant("no-such-user-xyz"));
    const missing = await tokenRequest({ grant_type: "password", username: user.username });
    expect(await missing.json()).toMatchObject({ error: "invalid_request", error_description: "Missing required parameter: password." });
  });

  it("spec Authentication 3: refused (invalid_grant) for users with two-factor authentication", async () => {
    const user = await makeUser();
    await setUser(user.id, { otpRequired: true });
    await expectInvalidGrant(await grant(user.username));
  });

  it("account lockout: 10 failures lock that address out of the account (the right password gets the same invalid_grant); another address is unaffected", async () => {
    const user = await makeUser();
    const attacker = callFrom("203.0.113.40");
    const fromAttacker = (password: string) => tokenRequest({ grant_type: "password", username: user.username, password }, { fetcher: attacker });
    for (let i = 0; i < 10; i++) await expectInvalidGrant(await fromAttacker(`wrong-${i}-password`));
    await expectInvalidGrant(await fromAttacker(TEST_PASSWORD));
    // No username enumeration: an unknown user gets exactly the same answer.
    const unknown = await tokenRequest({ grant_type: "password", username: "nobody-here", password: TEST_PASSWORD }, { fetcher: attacker });
    await expectInvalidGrant(unknown);
    const owner = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD }, { fetcher: callFrom("198.51.100.40") });
    expect(owner.status).toBe(200);
  });

  it("DESIGN: blocked users are refused", async () => {
    const user = await makeUser();
    await setUser(user.id, { state: "blocked" });
    await expectInvalidGrant(await grant(user.username));
  });
});
