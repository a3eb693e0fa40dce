import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { TEST_PASSWORD, call, json, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { REDIRECT, tokenRequest } from "./helpers";

/**
 * RFC 9449 §5.2 (dpop_bound_access_tokens): an application may require DPoP-bound tokens. The
 * setting is set through the admin API, the application form and dynamic registration alike, and
 * the token endpoint then refuses a request without a proof.
 */
const setting = (uid: string) => env.DB.prepare("SELECT dpop_bound_access_tokens AS v FROM oauth_applications WHERE uid = ?").bind(uid).first<{ v: number }>();

async function refusesBearer(uid: string, secret?: string) {
  const user = await makeUser();
  const res = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, ...(secret ? {} : { client_id: uid }) }, secret ? { basic: [uid, secret] } : {});
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: string }).error).toBe("invalid_dpop_proof");
}

describe("RFC 9449 §5.2: applications that require DPoP", () => {
  it("§5.2: the admin API's dpop_bound_access_tokens is stored, answered, and enforced at the token endpoint", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const res = await call("/api/v4/applications", { ...json({ name: unique("app"), redirect_uri: REDIRECT, scopes: "api", dpop_bound_access_tokens: true }), token });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { application_id: string; secret: string; dpop_bound_access_tokens: boolean };
    expect(body.dpop_bound_access_tokens).toBe(true);
    expect((await setting(body.application_id))?.v).toBe(1);
    await refusesBearer(body.application_id, body.secret);
  });

  it("§5.2: the application form's 'Require DPoP-bound tokens' box sets it", async () => {
    const { browser } = await signedInUser();
    const page = await (await browser.get("/profile/applications")).text();
    expect(page).toContain('<label for="application_dpop_bound_access_tokens">Require DPoP-bound tokens</label>');
    const res = await browser.post("/profile/applications", { name: unique("App "), redirect_uri: REDIRECT, scopes: "api", confidential: "1", dpop_bound_access_tokens: "1" });
    expect(res.status).toBe(201);
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(await res.text())![1];
    expect((await setting(uid))?.v).toBe(1);
  });

  it("§5.2: dynamic registration with dpop_bound_access_tokens true registers a client that requires DPoP; a non-boolean is invalid_client_metadata", async () => {
    const res = await call("/oauth/register", json({ redirect_uris: [REDIRECT], client_name: "dpop", dpop_bound_access_tokens: true }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id: string; dpop_bound_access_tokens: boolean };
    expect(body.dpop_bound_access_tokens).toBe(true);
    expect((await setting(body.client_id))?.v).toBe(1);
    const bad = await call("/oauth/register", json({ redirect_uris: [REDIRECT], dpop_bound_access_tokens: "yes" }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_client_metadata");
  });
});
