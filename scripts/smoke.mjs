#!/usr/bin/env node
// Smoke test of a running service: README's main flows against any base URL.
//
//   SMOKE_PASSWORD=<root's password> node scripts/smoke.mjs https://auth.example.com
//
// SMOKE_USERNAME (default root) must be an administrator without two-factor authentication (the
// password grant refuses accounts with it). Needs only Node 20+ and git. It creates a throwaway
// application and project named smoke-<time> and deletes them at the end. Credentials travel in
// the environment, never on a command line. Exit status 0 when every flow works, 1 otherwise.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";

const base = (process.argv[2] || process.env.SMOKE_BASE_URL || "").replace(/\/+$/, "");
const username = process.env.SMOKE_USERNAME || "root";
const password = process.env.SMOKE_PASSWORD || process.env.ROOT_PASSWORD;
if (!base || !password) {
  console.error("usage: SMOKE_PASSWORD=<password of root> node scripts/smoke.mjs <base URL>");
  process.exit(2);
}

const stamp = `smoke-${Date.now().toString(36)}`;
const cleanups = [];
let failed = false;

async function step(name, fn) {
  try {
    const detail = await fn();
    console.log(`✓ ${name}${detail ? ` (${detail})` : ""}`);
  } catch (err) {
    failed = true;
    console.error(`✗ ${name}: ${err.message}`);
    throw err;
  }
}

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${res.status}`);
}

async function api(path, { token, method = "GET", body } = {}) {
  return fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** A minimal cookie jar for the pages (sign-in, consent). */
class Browser {
  cookies = new Map();
  async fetch(url, init = {}) {
    const res = await fetch(url.startsWith("http") ? url : `${base}${url}`, {
      ...init,
      redirect: "manual",
      headers: { ...init.headers, Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    return res;
  }
}

const csrfOf = (html) => /name="authenticity_token" value="([^"]+)"/.exec(html)?.[1];
const hiddenFields = (html) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], decodeHtml(m[2])]));
const decodeHtml = (s) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const b64url = (buf) => buf.toString("base64url");

let token = "";

try {
  await step("health", async () => {
    const res = await fetch(`${base}/-/health`);
    expectStatus(res, 200, "GET /-/health");
    const text = await res.text();
    if (text !== "GitLab OK") throw new Error(`unexpected body ${JSON.stringify(text.slice(0, 200))}`);
  });

  await step("discovery", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expectStatus(res, 200, "discovery");
    return `issuer ${(await res.json()).issuer}`;
  });

  await step(`password grant as ${username}`, async () => {
    const res = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username, password, scope: "api read_user" }) });
    expectStatus(res, 200, "POST /oauth/token (password)");
    token = (await res.json()).access_token;
  });

  await step("GET /api/v4/user and /api/v4/version", async () => {
    const me = await api("/api/v4/user", { token });
    expectStatus(me, 200, "/api/v4/user");
    const user = await me.json();
    if (user.username !== username) throw new Error(`signed in as ${user.username}`);
    const version = await api("/api/v4/version", { token });
    expectStatus(version, 200, "/api/v4/version");
    const v = await version.json();
    return `version ${v.version}, revision ${v.revision}`;
  });

  await step("authorization code with PKCE (sign in, consent, exchange, revoke)", async () => {
    const redirectUri = "http://127.0.0.1:9/smoke-callback";
    const created = await api("/api/v4/applications", { token, method: "POST", body: { name: stamp, redirect_uri: redirectUri, scopes: "read_user", confidential: false } });
    expectStatus(created, 201, "POST /api/v4/applications");
    const app = await created.json();
    cleanups.push(() => api(`/api/v4/applications/${app.id}`, { token, method: "DELETE" }));

    const browser = new Browser();
    const signInPage = await browser.fetch("/users/sign_in");
    const signedIn = await browser.fetch("/users/sign_in", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
      body: new URLSearchParams({ authenticity_token: csrfOf(await signInPage.text()) ?? "", username, password }),
    });
    expectStatus(signedIn, 303, "sign-in");

    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash("sha256").update(verifier).digest());
    const state = b64url(randomBytes(12));
    const authorize = new URLSearchParams({ client_id: app.application_id, redirect_uri: redirectUri, response_type: "code", scope: "read_user", state, code_challenge: challenge, code_challenge_method: "S256" });
    const consent = await browser.fetch(`/oauth/authorize?${authorize}`);
    expectStatus(consent, 200, "GET /oauth/authorize (consent page)");
    const fields = hiddenFields(await consent.text());
    const approved = await browser.fetch("/oauth/authorize", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
      body: new URLSearchParams({ ...fields, decision: "approve" }),
    });
    expectStatus(approved, 303, "POST /oauth/authorize (approve)");
    const back = new URL(approved.headers.get("location"));
    if (back.searchParams.get("state") !== state) throw new Error("state was not returned unchanged");
    const code = back.searchParams.get("code");
    if (!code) throw new Error(`no code in the redirect (${back.searchParams.get("error")})`);

    const exchanged = await fetch(`${base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: app.application_id, code_verifier: verifier }),
    });
    expectStatus(exchanged, 200, "code exchange");
    const tokens = await exchanged.json();
    const me = await api("/api/v4/user", { token: tokens.access_token });
    expectStatus(me, 200, "/api/v4/user with the code's token");
    const revoked = await fetch(`${base}/oauth/revoke`, { method: "POST", body: new URLSearchParams({ token: tokens.access_token, client_id: app.application_id }) });
    expectStatus(revoked, 200, "revoke");
    expectStatus(await api("/api/v4/user", { token: tokens.access_token }), 401, "/api/v4/user after revocation");
  });

  await step("GraphQL currentUser", async () => {
    const res = await fetch(`${base}/api/graphql`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ currentUser { username } }" }),
    });
    expectStatus(res, 200, "POST /api/graphql");
    const body = await res.json();
    if (body.data?.currentUser?.username !== username) throw new Error(JSON.stringify(body).slice(0, 300));
  });

  await step("Plugin Call ping (Connect JSON)", async () => {
    const res = await fetch(`${base}/proto.Plugin/Call`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ Header: { UUID: randomUUID(), Timestamp: String(Date.now()), Func: "ping" } }),
    });
    expectStatus(res, 200, "POST /proto.Plugin/Call");
    const body = await res.json();
    if ((body.Code ?? 0) !== 0) throw new Error(`Code ${body.Code}: ${body.Desc}`);
  });

  await step("git ls-remote over HTTPS", async () => {
    const created = await api("/api/v4/projects", { token, method: "POST", body: { name: stamp, path: stamp } });
    expectStatus(created, 201, "POST /api/v4/projects");
    const project = await created.json();
    cleanups.push(() => api(`/api/v4/projects/${project.id}`, { token, method: "DELETE" }));
    // The token goes to git through its environment (GIT_CONFIG_*), never its command line.
    const basic = Buffer.from(`oauth2:${token}`).toString("base64");
    const git = spawnSync("git", ["ls-remote", `${base}/${project.path_with_namespace}.git`], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` },
    });
    if (git.status !== 0) throw new Error(`git ls-remote exited with ${git.status}: ${git.stderr.trim()}`);
  });
} catch {
  // reported by step()
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

console.log(failed ? "smoke test FAILED" : "smoke test passed");
process.exit(failed ? 1 : 0);
