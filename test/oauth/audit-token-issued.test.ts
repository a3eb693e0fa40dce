import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { getDb } from "../../src/db/client";
import { findUserById } from "../../src/db/users";
import { issueAccessOnly, issueAccessOnlyMany } from "../../src/oauth/issue";
import { Browser, signedInUser } from "../helpers/browser";
import { callerAt } from "../helpers/versioned";
import { REDIRECT, TEST_PASSWORD, call, decide, getCode, makeApp, makeUser, pkce, tokenRequest, type Tokens } from "./helpers";

/**
 * DESIGN, Conventions (audit): every grant that issues tokens writes one token_issued row for the
 * new token family: the user, the family, the grant type, the application, the scopes and the
 * client address; never the token itself.
 */
interface AuditRow {
  action: string;
  author_id: number | null;
  entity_type: string;
  entity_id: string;
  details: string;
  ip_address: string | null;
}

async function issuedRows(token: string): Promise<AuditRow[]> {
  const fid = parseAccessToken(token)!.fid;
  const { results } = await env.DB.prepare("SELECT action, author_id, entity_type, entity_id, details, ip_address FROM audit_events WHERE action = 'token_issued' AND entity_id = ?")
    .bind(fid)
    .all<AuditRow>();
  return results;
}

function expectOneRow(rows: AuditRow[], token: string, expected: { userId: number; details: Record<string, unknown>; ip?: string }) {
  expect(rows).toHaveLength(1);
  const [row] = rows;
  expect(row).toMatchObject({ author_id: expected.userId, entity_type: "oauth_token_family", entity_id: parseAccessToken(token)!.fid });
  expect(JSON.parse(row.details)).toEqual(expected.details);
  if (expected.ip) expect(row.ip_address).toBe(expected.ip);
  // The row names the family, never a token.
  expect(JSON.stringify(row)).not.toContain(token.split(".").pop()!);
}

const IP = "203.0.113.77";
const fromIp = { "CF-Connecting-IP": IP };

describe("token_issued audit rows, one per grant that issues tokens", () => {
  it("authorization_code with PKCE: grant_type, application, scopes, pkce: true, the client address", async () => {
    const { app } = await makeApp({ confidential: false });
    const { user, browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, scope: "api read_user", code_challenge: challenge, code_challenge_method: "S256" });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier }, { fetcher: ipFetcher() });
    const t = (await res.json()) as Tokens;
    expectOneRow(await issuedRows(t.access_token), t.access_token, {
      userId: user.id,
      details: { grant_type: "authorization_code", application_id: app.id, scopes: ["api", "read_user"], pkce: true },
      ip: IP,
    });
  });

  it("authorization_code with a client secret: pkce: false", async () => {
    const { app, secret } = await makeApp();
    const { user, browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid, scope: "read_user" });
    const t = (await (await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })).json()) as Tokens;
    expectOneRow(await issuedRows(t.access_token), t.access_token, {
      userId: user.id,
      details: { grant_type: "authorization_code", application_id: app.id, scopes: ["read_user"], pkce: false },
    });
  });

  it("password, with and without a client: application_id or null", async () => {
    const user = await makeUser();
    const bare = (await (await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope: "api" }, { fetcher: ipFetcher() })).json()) as Tokens;
    expectOneRow(await issuedRows(bare.access_token), bare.access_token, { userId: user.id, details: { grant_type: "password", application_id: null, scopes: ["api"] }, ip: IP });
    const { app, secret } = await makeApp();
    const withClient = (await (
      await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope: "read_user", client_id: app.uid, client_secret: secret })
    ).json()) as Tokens;
    expectOneRow(await issuedRows(withClient.access_token), withClient.access_token, {
      userId: user.id,
      details: { grant_type: "password", application_id: app.id, scopes: ["read_user"] },
    });
  });

  it("implicit (served below 15.0): the token in the fragment has its row", async () => {
    const { app } = await makeApp({ confidential: false });
    const browser = new Browser(callerAt("14.10"));
    const { user } = await signedInUser(browser);
    const res = await decide(browser, { response_type: "token", client_id: app.uid, redirect_uri: REDIRECT, scope: "read_user", state: "s" });
    const fragment = new URLSearchParams(new URL(res.headers.get("location")!).hash.slice(1));
    const token = fragment.get("access_token")!;
    expect(token).toBeTruthy();
    expectOneRow(await issuedRows(token), token, { userId: user.id, details: { grant_type: "implicit", application_id: app.id, scopes: ["read_user"] } });
  });

  it("device_code (RFC 8628): the token polled after approval has its row", async () => {
    const { app } = await makeApp({ confidential: false, scopes: ["api", "read_user"] });
    const started = await tokenlessPost("/oauth/authorize_device", { client_id: app.uid, scope: "read_user" });
    const auth = (await started.json()) as { device_code: string; user_code: string };
    const { user, browser } = await signedInUser();
    await browser.get("/oauth/device");
    expect((await browser.post("/oauth/device", { user_code: auth.user_code })).status).toBe(200);
    await browser.post("/oauth/device/decision", { user_code: auth.user_code.replace("-", ""), decision: "approve" });
    // A well-behaved client waits for the interval before polling.
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(auth.device_code)))].map((b) => b.toString(16).padStart(2, "0")).join("");
    await env.DB.prepare("UPDATE oauth_device_grants SET last_polled_at = last_polled_at - 60000 WHERE device_code_hash = ?").bind(hash).run();
    const t = (await (await tokenRequest({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: app.uid, device_code: auth.device_code })).json()) as Tokens;
    expectOneRow(await issuedRows(t.access_token), t.access_token, { userId: user.id, details: { grant_type: "device_code", application_id: app.id, scopes: ["read_user"] } });
  });

  it("refresh_token rotates within the family: no second token_issued row (the rotation is audited as token_refreshed)", async () => {
    const { app, secret } = await makeApp();
    const { browser } = await signedInUser();
    const code = await getCode(browser, { client_id: app.uid, scope: "api" });
    const t = (await (await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, client_secret: secret, code, redirect_uri: REDIRECT })).json()) as Tokens;
    const r = (await (await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh_token!, client_id: app.uid, client_secret: secret })).json()) as Tokens;
    expect(parseAccessToken(r.access_token)!.fid).toBe(parseAccessToken(t.access_token)!.fid);
    expect(await issuedRows(r.access_token)).toHaveLength(1);
  });

  it("grants issued in bulk (issueAccessOnlyMany, an import or seeding at scale): each family's directory row and one token_issued row, as the single issue writes them, and each token valid", async () => {
    const { app } = await makeApp();
    const user = await makeUser();
    const row = (await findUserById(getDb(env.DB), user.id))!;
    // 30 families: their rows span several bounded statements (10 directory rows, 12 audit rows each) of the one batch.
    const issued = await issueAccessOnlyMany(env, { app, userId: user.id, scopes: ["api"], grantType: "password", user: row, ip: IP }, 30);
    expect(new Set(issued.map((i) => i.family.id)).size).toBe(30);
    for (const i of issued) {
      expect(parseAccessToken(i.token)!.fid).toBe(i.family.id);
      expectOneRow(await issuedRows(i.token), i.token, { userId: user.id, details: { grant_type: "password", application_id: app.id, scopes: ["api"] }, ip: IP });
      expect((await call("/api/v4/user", { token: i.token })).status).toBe(200);
    }
    const directory = await env.DB.prepare("SELECT count(*) AS n FROM oauth_token_families WHERE user_id = ? AND application_id = ? AND status = 'active' AND grant_type = 'password'")
      .bind(user.id, app.id)
      .first<{ n: number }>();
    expect(directory!.n).toBe(30);
    // The single issue's rows, for comparison: the same row, the same details.
    const one = await issueAccessOnly(env, { app, userId: user.id, scopes: ["api"], grantType: "password", user: row, ip: IP });
    expect(JSON.parse((await issuedRows(one.token))[0].details)).toEqual(JSON.parse((await issuedRows(issued[0].token))[0].details));
  });
});

function ipFetcher() {
  const at = callerAt("16.0");
  return (path: string, init: RequestInit & { token?: string } = {}) => at(path, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), ...fromIp } });
}

function tokenlessPost(path: string, fields: Record<string, string>) {
  return callerAt("16.0")(path, { method: "POST", body: new URLSearchParams(fields), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}
