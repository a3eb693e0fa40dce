import { create } from "@bufbuild/protobuf";
import { execFileSync } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VARIABLES } from "../../src/config-variables";
import { base32Decode, totp } from "../../src/crypto/totp";
import { FileStreamSchema } from "../../src/gen/proto/plugin_pb";
import { hiddenFields, Jar } from "./form-jar";
import { apiCall, createUser, passwordGrant } from "./pages-support";
import { header, pluginClient } from "./plugin-helpers";
import { freePort, ROOT_DIR, startService, type RunningServer } from "./server";
import { pause as sleep, until } from "./wait";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startGitOrigin } from "../../scripts/git-origin.mjs";

/**
 * Issue 13, "configuration that works the same everywhere": `npm start` with a non-default value
 * for each variable README documents, and the effect of each one seen from outside.
 */
const ROOT_PASSWORD = "cfg-Root-Password-$HOME-9";
const VARS = {
  ROOT_PASSWORD,
  ISSUER: "http://issuer.example.test",
  TRUSTED_ID_JAG_ISSUERS: JSON.stringify([{ issuer: "https://idp.example.test", jwks_uri: "https://idp.example.test/jwks.json" }]),
  ACCESS_TOKEN_TTL_SECONDS: "1234",
  SESSION_TTL_SECONDS: "2",
  SERVICE_VERSION: "15.0",
  SERVICE_REVISION: "cfg-test-rev",
  ALLOW_INSECURE_REDIRECTS: "false",
  ALLOW_LOOPBACK_CLIENT_METADATA: "false",
  // Replaced in beforeAll by an origin this test runs with GIT_ORIGIN_SECRET (scripts/git-origin.mjs).
  GIT_ORIGIN: "http://127.0.0.1:9",
  GIT_ORIGIN_SECRET: "a-git-origin-secret-of-the-configuration-test-0123456789",
  SECRET_KEY_BASE: "a-secret-key-base-of-the-configuration-test-0123456789",
  SECRET_KEY_BASE_PREVIOUS: "the-previous-key-base-of-the-configuration-test-987654",
  REFRESH_GRACE_SECONDS: "1",
  VALIDATION_CACHE_SECONDS: "3",
  UPLOAD_MAX_FILE_BYTES: "1000",
  UPLOAD_MAX_PART_BYTES: "300",
  UPLOAD_MAX_PARTS: "3",
  UPLOAD_STREAM_PUT_MAX_BYTES: "100",
  SEED_DEMO_DATA: "false",
  BENCH_ROUTES: "true",
  // The server runs with --verbose (wrangler's log shown): the Worker's own request line is not.
  REQUEST_LOG: "false",
  LOCAL_DEV: "false",
  // Short windows keep the throttle and lockout checks independent of the failures before them.
  THROTTLE_FAILED_AUTH_LIMIT: "4",
  THROTTLE_FAILED_AUTH_WINDOW_SECONDS: "2",
  THROTTLE_FAILED_AUTH_BAN_SECONDS: "3",
  THROTTLE_FAILED_BEARER_LIMIT: "3",
  THROTTLE_FAILED_BEARER_WINDOW_SECONDS: "2",
  THROTTLE_FAILED_BEARER_BAN_SECONDS: "3",
  LOCKOUT_MAX_FAILURES: "2",
  LOCKOUT_WINDOW_SECONDS: "2",
  LOCKOUT_SECONDS: "3",
  ACCOUNT_GUARD_PASSWORD_FAILURES: "2",
  ACCOUNT_GUARD_TWO_FACTOR_FAILURES: "2",
  ACCOUNT_GUARD_WINDOW_SECONDS: "2",
  ACCOUNT_GUARD_SECONDS: "6",
  REGISTRY_TOKEN_TTL_SECONDS: "77",
  REGISTRY_MAX_BLOB_BYTES: "1000",
  REGISTRY_MAX_MANIFEST_BYTES: "600",
  REGISTRY_UPLOAD_TTL_SECONDS: "2",
  ORPHAN_SWEEP_SECONDS: "2",
  CLIENT_ADDRESS_HEADER: "X-Forwarded-For",
  REGISTRY_PROJECT_QUOTA_BYTES: "1500",
  // Replaced in beforeAll by a local HTTP mail API that records what it is sent.
  MAIL_HTTP_URL: "http://127.0.0.1:9/emails",
  MAIL_HTTP_KEY: "a-mail-api-key-of-the-configuration-test",
  MAIL_FROM: "accounts@issuer.example.test",
};
/**
 * CLIENT_ADDRESS_HEADER is X-Forwarded-For here: each throttle and lockout test fails from an
 * address of its own, so no test waits for the failures of another to age out, in any order, and
 * they run side by side (describe.concurrent below): their waits are real windows and bans of seconds, which
 * would otherwise add up one after another.
 */
const addressOf = (n: number) => ({ "X-Forwarded-For": `198.18.0.${n}` });

let server: RunningServer;
let port = 0;
let persist = "";
let base = "";
let token = "";
let gitRoot = "";
let mailApi: Server;
/** What the HTTP mail API (MAIL_HTTP_URL) received. */
const mailed: { path: string; authorization: string; body: { from: string; to: string; subject: string; text: string } }[] = [];

beforeAll(async () => {
  persist = mkdtempSync(path.join(tmpdir(), "edge-auth-config-"));
  gitRoot = path.join(persist, "external-git-origin");
  const origin = await startGitOrigin(gitRoot, { unref: true, secret: VARS.GIT_ORIGIN_SECRET });
  mailApi = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      mailed.push({ path: req.url ?? "", authorization: req.headers.authorization ?? "", body: JSON.parse(body) });
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"id":"1"}');
    });
  });
  await new Promise<void>((r) => mailApi.listen(0, "127.0.0.1", () => r()));
  const mailUrl = `http://127.0.0.1:${(mailApi.address() as AddressInfo).port}/emails`;
  const { ROOT_PASSWORD: rootPassword, ...vars } = { ...VARS, GIT_ORIGIN: origin.url, MAIL_HTTP_URL: mailUrl };
  port = await freePort();
  server = await startService({ persistDir: persist, rootPassword, port, vars, verbose: true });
  base = server.baseURL;
  token = await passwordGrant(base, "root", ROOT_PASSWORD);
});

afterAll(async () => {
  await server?.stop();
  mailApi?.close();
  rmSync(persist, { recursive: true, force: true });
});

/** The sign-in page's cookies and the CSRF token of its form. */
async function signInPage(): Promise<{ cookies: string[]; csrf: string }> {
  const page = await fetch(`${base}/users/sign_in`);
  const cookies = page.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())![1];
  return { cookies, csrf };
}

function postSignIn(cookies: string[], csrf: string, username: string, password: string): Promise<Response> {
  return fetch(`${base}/users/sign_in`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookies.join("; "), "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ authenticity_token: csrf, username, password, redirect_to: "/profile/applications" }),
  });
}

/** Signs in through the page with a tiny cookie jar; returns the cookies of the session. */
async function signIn(username: string, password: string): Promise<string> {
  const { cookies, csrf } = await signInPage();
  const res = await postSignIn(cookies, csrf, username, password);
  expect(res.status).toBe(303);
  const session = res.headers.getSetCookie().filter((c) => !/Max-Age=0/i.test(c));
  expect(session.join("\n")).toContain(`Max-Age=${VARS.SESSION_TTL_SECONDS}`);
  const jar = new Map([...cookies, ...session.map((c) => c.split(";")[0])].map((c) => c.split("=", 2) as [string, string]));
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/**
 * A pre-session CSRF token made with the given key base, the way src/web/session.ts makes it
 * (HMAC-SHA-256 of "pre:<cookie>" under SHA-256("csrf-token-v1:" + key base), base64url): the
 * oracle for which key bases the server accepts.
 */
function csrfUnder(keyBase: string, preCookie: string): string {
  const key = createHash("sha256").update(`csrf-token-v1:${keyBase}`).digest();
  return createHmac("sha256", key).update(`pre:${preCookie}`).digest("base64url");
}

function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams(form), headers });
}

const failedGrant = (username: string, headers: Record<string, string> = {}) => tokenRequest({ grant_type: "password", username, password: "not-the-password-1" }, headers);

// Every test here makes its own users, clients, projects and failing addresses, and many wait out
// a real window, TTL or ban of seconds: they run side by side (vitest's maxConcurrency at a time)
// instead of adding their waits up one after another.
describe.concurrent("every documented variable takes effect under npm start (README, Configuration)", () => {
  // The longest (three waits of its own, about 11 s) starts first, beside all the others.
  it("ACCOUNT_GUARD_PASSWORD_FAILURES, ACCOUNT_GUARD_WINDOW_SECONDS and ACCOUNT_GUARD_SECONDS set the account-wide bound on passwords", async () => {
    const user = await createUser(base, token, "guarded");
    const from = addressOf(2);
    const grant = () => tokenRequest({ grant_type: "password", username: user.username, password: user.password }, from);
    // Two failures 2.5 s apart fall in different windows: nothing is guarded, and (LOCKOUT_MAX_FAILURES
    // being 2 as well) nothing is locked either.
    expect((await failedGrant(user.username, from)).status).toBe(400);
    await sleep(2500);
    expect((await failedGrant(user.username, from)).status).toBe(400);
    await sleep(2500);
    // This address never signed in to the account. Two failures within the window spend the budget
    // (and lock this address for LOCKOUT_SECONDS, 3 s)...
    const beforeGuard = Date.now();
    expect((await failedGrant(user.username, from)).status).toBe(400);
    expect((await failedGrant(user.username, from)).status).toBe(400);
    // ...after the 3 s lock the guard still refuses the right password from an unknown address,
    // until ACCOUNT_GUARD_SECONDS (6 s) have passed since it started (after beforeGuard).
    await until(async () => (await grant()).status === 200, 9000);
    expect(Date.now() - beforeGuard).toBeGreaterThanOrEqual(5000);
  });

  it("ROOT_PASSWORD (with a $ in it) creates root and never appears on a command line", () => {
    // The password grant of beforeAll succeeded with it; `ps` must not show it.
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps).not.toContain(ROOT_PASSWORD);
    expect(ps).not.toContain(VARS.SECRET_KEY_BASE);
  });

  it("ISSUER is the issuer of the discovery document", async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
    expect(meta.issuer).toBe(VARS.ISSUER);
    expect(meta.token_endpoint).toBe(`${VARS.ISSUER}/oauth/token`);
  });

  it("TRUSTED_ID_JAG_ISSUERS trusts identity providers for the jwt-bearer grant: discovery advertises it, and an ID-JAG of another issuer is refused", async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] };
    expect(meta.grant_types_supported).toContain("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const unsigned = `${btoa(JSON.stringify({ alg: "ES256", typ: "oauth-id-jag+jwt" }))}.${btoa(JSON.stringify({ iss: "https://untrusted.example" }))}.c2ln`.replace(/=/g, "");
    const res = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: unsigned }) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it("ACCESS_TOKEN_TTL_SECONDS is a token's expires_in", async () => {
    const res = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "root", password: ROOT_PASSWORD }) });
    expect(((await res.json()) as { expires_in: number }).expires_in).toBe(1234);
  });

  it("REQUEST_LOG=false: under npm start -- --verbose wrangler logs each request, and the Worker writes no request line", async () => {
    const probe = `/api/v4/version?request-log-probe=${Date.now()}`;
    expect((await fetch(`${base}${probe}`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    // wrangler's own line for the request (the log is verbose, so a request line would show too).
    await until(() => /GET \/api\/v4\/version\S* 200/.test(server.output()), 5000, "wrangler's log line of the probe");
    expect(server.output()).not.toContain('"msg":"request"');
  });

  it("SERVICE_VERSION and SERVICE_REVISION are what /api/v4/version reports", async () => {
    const res = await fetch(`${base}/api/v4/version`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await res.json()).toMatchObject({ version: "15.0.0", revision: "cfg-test-rev" });
  });

  it("SESSION_TTL_SECONDS ends a browser session after its lifetime", async () => {
    const cookie = await signIn("root", ROOT_PASSWORD);
    const during = await fetch(`${base}/profile/applications`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(during.status).toBe(200);
    let after = during;
    const took = await until(async () => {
      after = await fetch(`${base}/profile/applications`, { headers: { Cookie: cookie }, redirect: "manual" });
      return after.status !== 200;
    }, 5000);
    // Not before its lifetime of 2 s (less the sign-in's own time).
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(after.status).toBe(302);
    expect(after.headers.get("location")).toContain("/users/sign_in");
  });

  it("ALLOW_INSECURE_REDIRECTS=false refuses an http: redirect URI for a non-loopback host", async () => {
    const res = await fetch(`${base}/api/v4/applications`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "insecure", redirect_uri: "http://app.example.com/cb", scopes: "api" }),
    });
    expect(res.status).toBe(400);
  });

  it("ALLOW_LOOPBACK_CLIENT_METADATA=false refuses a loopback http client_id (a Client ID Metadata Document URL) before fetching it", async () => {
    const res = await fetch(`${base}/oauth/authorize?${new URLSearchParams({ client_id: "http://127.0.0.1:9/client.json", redirect_uri: "http://127.0.0.1:9/cb", response_type: "code" })}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("the URL must use https");
  });

  it("GIT_ORIGIN is where repositories are created and git requests go, signed with GIT_ORIGIN_SECRET", async () => {
    const created = await fetch(`${base}/api/v4/projects`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "cfg", path: "cfg", initialize_with_readme: true }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    // The repository is in the origin this test started (hashed storage by project id), not npm start's own.
    const hash = createHash("sha256").update(String(id)).digest("hex");
    expect(readdirSync(path.join(gitRoot, "@hashed", hash.slice(0, 2), hash.slice(2, 4)))).toContain(`${hash}.git`);
    expect(readdirSync(persist)).not.toContain("git");
    const refs = await fetch(`${base}/root/cfg.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString("base64")}` },
    });
    expect(refs.status).toBe(200);
    expect(await refs.text()).toContain("refs/heads/main");
    const readiness = await fetch(`${base}/-/readiness`);
    expect(await readiness.json()).toMatchObject({ status: "ok", git_origin_check: [{ status: "ok" }] });
  });

  it("UPLOAD_MAX_FILE_BYTES limits SendFile (Code 8 past it)", async () => {
    const client = pluginClient("connect", base, token);
    const h = header({ Func: "upload" });
    async function* parts() {
      yield create(FileStreamSchema, { Header: h, Name: "big.bin", TotalSize: 2000n, TotalPart: 1n, Part: 1n, Data: new Uint8Array(2000) });
    }
    const res = await client.sendFile(parts());
    expect(res.Code).toBe(8);
    expect(res.Desc).toContain("1000");
  });

  it("SEED_DEMO_DATA=false seeds nothing; BENCH_ROUTES=true mounts the bench floor", async () => {
    const demo = await fetch(`${base}/api/v4/groups/demo`, { headers: { Authorization: `Bearer ${token}` } });
    expect(demo.status).toBe(404);
    const bench = await fetch(`${base}/-/bench/empty`);
    expect(bench.status).toBe(200);
  });

  it("LOCAL_DEV=false with a strong SECRET_KEY_BASE serves (the production checks pass)", async () => {
    expect((await fetch(`${base}/-/health`)).status).toBe(200);
  });

  it("PORT is where npm start listens; PERSIST_DIR is where the state (D1, Durable Objects, R2) lands", () => {
    expect(new URL(base).port).toBe(String(port));
    expect(port).not.toBe(8787);
    // Miniflare's layout under --persist-to: v3/<d1|do|r2>/...; root and its tokens are in this D1.
    const kinds = readdirSync(path.join(persist, "v3"));
    expect(kinds).toEqual(expect.arrayContaining(["d1", "do"]));
    const d1 = readdirSync(path.join(persist, "v3", "d1"), { recursive: true }) as string[];
    expect(d1.some((f) => f.endsWith(".sqlite"))).toBe(true);
  });

  it("SECRET_KEY_BASE signs the CSRF tokens; SECRET_KEY_BASE_PREVIOUS still verifies them; another key does not", async () => {
    const { cookies } = await signInPage();
    const pre = cookies.find((c) => c.startsWith("_edge_auth_csrf="))!.slice("_edge_auth_csrf=".length);
    expect(pre).toBeTruthy();
    const attempt = (keyBase: string) => postSignIn(cookies, csrfUnder(keyBase, pre), "root", ROOT_PASSWORD);
    expect((await attempt(VARS.SECRET_KEY_BASE)).status).toBe(303);
    expect((await attempt(VARS.SECRET_KEY_BASE_PREVIOUS)).status).toBe(303);
    const other = await attempt("local-development-secret-key-base-change-me");
    expect(other.status).toBe(403);
  });

  it("REFRESH_GRACE_SECONDS: a replay of a used refresh token after the grace is reuse (invalid_grant), not the grace pair", async () => {
    // A refresh token comes from the authorization-code grant (the password grant issues none).
    const redirect = "http://127.0.0.1:9/callback";
    const app = await apiCall(base, "POST", "/applications", token, { name: "grace", redirect_uri: redirect, scopes: "api", confidential: true });
    const client = { client_id: app.application_id as string, client_secret: app.secret as string };
    const jar = new Jar(base);
    const signInForm = await (await jar.fetch("/users/sign_in")).text();
    expect((await jar.post("/users/sign_in", { ...hiddenFields(signInForm), username: "root", password: ROOT_PASSWORD })).status).toBe(303);
    const consent = await jar.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: redirect, response_type: "code", scope: "api", state: "s" })}`);
    expect(consent.status).toBe(200);
    const decided = await jar.post("/oauth/authorize", { ...hiddenFields(await consent.text()), decision: "approve" });
    const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
    const issued = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: redirect, ...client });
    expect(issued.status).toBe(200);
    const { refresh_token } = (await issued.json()) as { refresh_token: string };
    const refresh = () => tokenRequest({ grant_type: "refresh_token", refresh_token, ...client });
    // Before the first use: the grace runs from the server's time of it, never earlier than this.
    const started = Date.now();
    expect((await refresh()).status).toBe(200);
    // Within the grace a replay gets the grace pair again; the first one past it is reuse.
    let replay = await refresh();
    expect(replay.status).toBe(200);
    await until(async () => (replay = await refresh()).status !== 200, 4000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("VALIDATION_CACHE_SECONDS: a block answers only once the bound has passed since the user's token was last vouched for, and then the token is refused", async () => {
    const user = await createUser(base, token, "cache");
    const userToken = await passwordGrant(base, user.username, user.password);
    const asUser = () => fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${userToken}` } });
    // Taken before the request that gets the token vouched for: the object vouches after this
    // instant, and the block answers no earlier than 3 s after the vouching, so no earlier than
    // 3 s after this (less a clock tick). Taken after that request's answer instead, the bound
    // shrinks by however long the answer took to come back, close to a second on a loaded machine.
    const beforeVouching = Date.now();
    expect((await asUser()).status).toBe(200);
    const blocked = await fetch(`${base}/api/v4/users/${user.id}/block`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(blocked.status).toBe(201);
    expect(Date.now() - beforeVouching).toBeGreaterThanOrEqual(3000 - 20);
    expect((await asUser()).status).toBe(401);
  });

  it("UPLOAD_MAX_PART_BYTES and UPLOAD_MAX_PARTS limit SendFile (Code 8 past either)", async () => {
    const client = pluginClient("connect", base, token);
    async function* onePart(size: number) {
      yield create(FileStreamSchema, { Header: header({ Func: "upload" }), Name: "part.bin", TotalSize: BigInt(size), TotalPart: 1n, Part: 1n, Data: new Uint8Array(size) });
    }
    const bigPart = await client.sendFile(onePart(400));
    expect(bigPart.Code).toBe(8);
    expect(bigPart.Desc).toContain("300 bytes per part");
    async function* fourParts() {
      const h = header({ Func: "upload" });
      for (let part = 1n; part <= 4n; part++) {
        yield create(FileStreamSchema, { Header: h, Name: "parts.bin", TotalSize: 40n, TotalPart: 4n, Part: part, Data: new Uint8Array(10) });
      }
    }
    const tooMany = await client.sendFile(fourParts());
    expect(tooMany.Code).toBe(8);
    expect(tooMany.Desc).toContain("limit of 3 parts");
    expect(await client.sendFile(onePart(300))).toMatchObject({ Code: 0 });
  });

  it("UPLOAD_STREAM_PUT_MAX_BYTES: a file past it goes the multipart way and arrives whole", async () => {
    // Which R2 write is used is not visible from outside; this checks that the multipart path a
    // 100-byte threshold forces on a 250-byte file stores it (not that the value is read).
    const client = pluginClient("connect", base, token);
    const data = Uint8Array.from({ length: 250 }, (_, i) => i % 251);
    async function* parts() {
      const h = header({ Func: "upload" });
      for (let i = 0; i < 3; i++) {
        yield create(FileStreamSchema, { Header: h, Name: "multi.bin", TotalSize: 250n, TotalPart: 3n, Part: BigInt(i + 1), Data: data.slice(i * 100, (i + 1) * 100) });
      }
    }
    expect(await client.sendFile(parts())).toMatchObject({ Code: 0 });
  });

  it("ORPHAN_SWEEP_SECONDS: a dynamically registered client that never received a grant is swept by the cron once that old", async () => {
    // Before the request: the server's registration time is no earlier, however long its answer takes.
    const registeredAt = Date.now();
    const reg = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "never used", redirect_uris: ["http://127.0.0.1:9/cb"] }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    const listed = async () =>
      ((await (await fetch(`${base}/api/v4/applications?per_page=100`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { application_id: string }[]).some(
        (a) => a.application_id === client_id,
      );
    expect(await listed()).toBe(true);
    await until(async () => {
      expect((await fetch(`${base}/__scheduled?cron=${encodeURIComponent("*/10 * * * *")}`)).status).toBe(200);
      await sleep(300);
      return !(await listed());
    }, 10_000);
    expect(Date.now() - registeredAt).toBeGreaterThanOrEqual(2000);
  });

  describe("the container registry limits", () => {
    const name = "root/reg";
    const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;
    // The quota test pushes to a project of its own, so the quota it fills holds in any order.
    const quotaName = "root/regquota";
    let bearer: Record<string, string> = {};
    let quotaBearer: Record<string, string> = {};
    let abandoned = "";
    let abandonedAt = 0;

    beforeAll(async () => {
      const me = await apiCall(base, "GET", "/user", token);
      const expires_at = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
      const pat = (await apiCall(base, "POST", `/users/${me.id}/personal_access_tokens`, token, { name: "cfg", scopes: ["read_registry", "write_registry"], expires_at })).token;
      const pushToken = async (repository: string) => {
        await apiCall(base, "POST", "/projects", token, { name: repository.split("/")[1], path: repository.split("/")[1] });
        const q = new URLSearchParams({ service: "container_registry", scope: `repository:${repository}:pull,push` });
        const res = await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`root:${pat}`).toString("base64")}` } });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { token: string; expires_in: number };
        expect(body.expires_in).toBe(77);
        return { Authorization: `Bearer ${body.token}` };
      };
      bearer = await pushToken(name);
      quotaBearer = await pushToken(quotaName);
      // An upload session left behind, for REGISTRY_UPLOAD_TTL_SECONDS below (its time taken before
      // the request: the server's is no earlier, however long the answer takes).
      abandonedAt = Date.now();
      const started = await fetch(`${base}/v2/${name}/blobs/uploads/`, { method: "POST", headers: bearer });
      expect(started.status).toBe(202);
      abandoned = started.headers.get("location")!;
    });

    const pushBlob = (b: Buffer, to = name, auth = bearer) => fetch(`${base}/v2/${to}/blobs/uploads/?digest=${sha(b)}`, { method: "POST", headers: auth, body: b });

    it("REGISTRY_TOKEN_TTL_SECONDS is the expires_in of /jwt/auth", () => {
      // Checked in beforeAll on the token the other registry checks use.
      expect(bearer.Authorization).toMatch(/^Bearer /);
    });

    it("REGISTRY_MAX_BLOB_BYTES refuses a larger blob (413 SIZE_INVALID) and takes one at the limit", async () => {
      const tooBig = await pushBlob(Buffer.alloc(1001, 7));
      expect(tooBig.status).toBe(413);
      expect(JSON.stringify(await tooBig.json())).toContain("SIZE_INVALID");
      expect((await pushBlob(Buffer.alloc(1000, 7))).status).toBe(201);
    });

    it("REGISTRY_MAX_MANIFEST_BYTES refuses a larger manifest (413) and takes a small one", async () => {
      const config = Buffer.from('{"os":"linux"}');
      expect((await pushBlob(config)).status).toBe(201);
      const manifest = (annotation: string) =>
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha(config), size: config.length },
          layers: [],
          annotations: { note: annotation },
        });
      const put = (body: string) => fetch(`${base}/v2/${name}/manifests/v1`, { method: "PUT", headers: { ...bearer, "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, body });
      const large = manifest("x".repeat(600));
      expect(Buffer.byteLength(large)).toBeGreaterThan(600);
      const refused = await put(large);
      expect(refused.status).toBe(413);
      expect(JSON.stringify(await refused.json())).toContain("SIZE_INVALID");
      const small = manifest("small");
      expect(Buffer.byteLength(small)).toBeLessThanOrEqual(600);
      expect((await put(small)).status).toBe(201);
    });

    it("REGISTRY_PROJECT_QUOTA_BYTES refuses a push past the project's quota (403 DENIED naming it)", async () => {
      // Two layers of 1000 and 600 bytes: each under REGISTRY_MAX_BLOB_BYTES, together past the quota of 1500.
      const config = Buffer.from('{"os":"linux","quota":true}');
      const layers = [Buffer.alloc(1000, 9), Buffer.alloc(600, 8)];
      for (const b of [config, ...layers]) expect((await pushBlob(b, quotaName, quotaBearer)).status).toBe(201);
      const body = JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha(config), size: config.length },
        layers: layers.map((layer) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: sha(layer), size: layer.length })),
      });
      const res = await fetch(`${base}/v2/${quotaName}/manifests/quota`, { method: "PUT", headers: { ...quotaBearer, "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, body });
      expect(res.status).toBe(403);
      const err = ((await res.json()) as { errors: { code: string; message: string }[] }).errors[0];
      expect(err.code).toBe("DENIED");
      expect(err.message).toContain("quota of 1500 bytes");
    });

    it("REGISTRY_UPLOAD_TTL_SECONDS: an upload session untouched that long is swept by the scheduled sweep", async () => {
      const status = (loc: string) => fetch(new URL(loc, base), { headers: bearer });
      expect((await status(abandoned)).status).toBe(204);
      // The cron trigger's handler (wrangler dev --test-scheduled runs it on demand) sweeps in
      // waitUntil: run it until the session is gone, which happens only once the 2 s TTL is past.
      await until(async () => {
        expect((await fetch(`${base}/__scheduled?cron=${encodeURIComponent("*/10 * * * *")}`)).status).toBe(200);
        await sleep(200);
        return (await status(abandoned)).status === 404;
      }, 8000);
      expect(Date.now() - abandonedAt).toBeGreaterThanOrEqual(2000);
    });
  });

  it("CLIENT_ADDRESS_HEADER=X-Forwarded-For: the last entry of X-Forwarded-For is the client address of audit rows; a client-sent CF-Connecting-IP is not", async () => {
    const user = await createUser(base, token, "addressed");
    const wrong = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "X-Forwarded-For": "10.9.9.9, 203.0.113.77", "CF-Connecting-IP": "198.51.100.77" },
      body: new URLSearchParams({ grant_type: "password", username: user.username, password: "not-the-password-1" }),
    });
    expect(wrong.status).toBe(400);
    const events: { event_name: string; details: { ip_address: string | null } }[] = await apiCall(base, "GET", `/audit_events?entity_type=User&entity_id=${user.id}`, token);
    expect(events.filter((e) => e.event_name === "failed_sign_in").map((e) => e.details.ip_address)).toEqual(["203.0.113.77"]);
  });

  it("LOCKOUT_WINDOW_SECONDS, LOCKOUT_MAX_FAILURES and LOCKOUT_SECONDS set the account lockout", async () => {
    const user = await createUser(base, token, "locked");
    const from = addressOf(1);
    const grant = () => tokenRequest({ grant_type: "password", username: user.username, password: user.password }, from);
    const wrong = () => failedGrant(user.username, from);
    // A failure older than the 2 s window does not count: two failures 2.5 s apart lock nothing.
    expect((await wrong()).status).toBe(400);
    await sleep(2500);
    expect((await wrong()).status).toBe(400);
    expect((await grant()).status).toBe(200);
    // The second failure within the window locks this address out (also with the right password)...
    const beforeLock = Date.now();
    expect((await wrong()).status).toBe(400);
    expect((await grant()).status).toBe(400);
    // ...for LOCKOUT_SECONDS (3 s), counted from that failure, which the server saw after beforeLock.
    await until(async () => (await grant()).status === 200, 6000);
    expect(Date.now() - beforeLock).toBeGreaterThanOrEqual(2500);
  });

  it("ACCOUNT_GUARD_TWO_FACTOR_FAILURES sets the account-wide ceiling on second-factor codes: the failure that reaches it ends the pending sign-in", async () => {
    const user = await createUser(base, token, "guarded2fa");
    const owner = new Jar(base);
    await owner.fetch("/users/sign_in");
    let csrf = hiddenFields(await (await owner.fetch("/users/sign_in")).text()).authenticity_token;
    expect((await owner.post("/users/sign_in", { authenticity_token: csrf, username: user.username, password: user.password })).status).toBe(303);
    // SESSION_TTL_SECONDS is 2 here: enrol at once.
    const page = await (await owner.fetch("/profile/two_factor_auth")).text();
    const secret = /data-secret="([A-Z2-7]+)"/.exec(page)![1];
    const code = await totp(base32Decode(secret), Date.now() / 1000);
    const enrolled = await owner.post("/profile/two_factor_auth", { authenticity_token: hiddenFields(page).authenticity_token, pin_code: code, current_password: user.password });
    expect(enrolled.status).toBeLessThan(400);
    const jar = new Jar(base);
    csrf = hiddenFields(await (await jar.fetch("/users/sign_in")).text()).authenticity_token;
    expect((await jar.post("/users/sign_in", { authenticity_token: csrf, username: user.username, password: user.password })).status).toBe(303);
    const form = hiddenFields(await (await jar.fetch("/users/sign_in/two_factor")).text());
    const first = await jar.post("/users/sign_in/two_factor", { ...form, otp_attempt: "000001" });
    expect(first.status).toBe(401);
    const firstPage = await first.text();
    expect(firstPage).toContain("Invalid two-factor code.");
    // The 2nd wrong code reaches the ceiling of 2 (the default is 10): back to the password.
    const second = await jar.post("/users/sign_in/two_factor", { ...hiddenFields(firstPage), otp_attempt: "000002" });
    expect(second.status).toBe(401);
    expect(await second.text()).toContain("Invalid username or password.");
  });

  it("THROTTLE_FAILED_BEARER_WINDOW_SECONDS, THROTTLE_FAILED_BEARER_LIMIT and THROTTLE_FAILED_BEARER_BAN_SECONDS set the bearer-token throttle", async () => {
    const badToken = () => fetch(`${base}/api/v4/user`, { headers: { Authorization: "Bearer not-a-token-of-the-configuration-test", ...addressOf(3) } });
    for (let i = 0; i < 2; i++) expect((await badToken()).status).toBe(401);
    await sleep(2500); // a new window: two more failures stay under the limit of 3
    for (let i = 0; i < 2; i++) expect((await badToken()).status).toBe(401);
    // The 3rd failure in the window reaches the limit and is refused with 429 (docs/security.md).
    const refused = await badToken();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3);
    // THROTTLE_FAILED_BEARER_BAN_SECONDS (3 s) later the ban is over (attempts while banned count nothing).
    expect(await until(async () => (await badToken()).status === 401, 6000)).toBeGreaterThanOrEqual(2000);
  });

  it("THROTTLE_FAILED_AUTH_WINDOW_SECONDS, THROTTLE_FAILED_AUTH_LIMIT and THROTTLE_FAILED_AUTH_BAN_SECONDS set the address throttle", async () => {
    const nobody = "nobody-of-the-configuration-test";
    const from = addressOf(4);
    for (let i = 0; i < 3; i++) expect((await failedGrant(nobody, from)).status).toBe(400);
    await sleep(2500); // a new window (it starts at its first failure): the limit of 4 holds again
    // Four failures at once, so all fall in the new window of 2 s even on a loaded machine: each is
    // counted and answered 400, the 4th starting the ban; the next attempt is refused with 429.
    expect((await Promise.all([1, 2, 3, 4].map(() => failedGrant(nobody, from)))).map((r) => r.status)).toEqual([400, 400, 400, 400]);
    const refused = await failedGrant(nobody, from);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-limit")).toBe("4");
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3);
    const rootGrant = () => tokenRequest({ grant_type: "password", username: "root", password: ROOT_PASSWORD }, from);
    expect((await rootGrant()).status).toBe(429);
    // Another address is not banned.
    expect((await tokenRequest({ grant_type: "password", username: "root", password: ROOT_PASSWORD }, addressOf(5))).status).toBe(200);
    // THROTTLE_FAILED_AUTH_BAN_SECONDS (3 s) later this address signs in again.
    expect(await until(async () => (await rootGrant()).status === 200, 6000)).toBeGreaterThanOrEqual(2000);
  });
});

describe("mail through an HTTP mail API", () => {
  it("MAIL_HTTP_URL, MAIL_HTTP_KEY and MAIL_FROM: a password reset is POSTed to the API with the key as a bearer token, from MAIL_FROM, its link on ISSUER", async () => {
    const me = (await (await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { email: string };
    const { cookies, csrf } = await signInPage();
    const res = await fetch(`${base}/users/password`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: cookies.join("; "), "Content-Type": "application/x-www-form-urlencoded", Origin: base },
      body: new URLSearchParams({ authenticity_token: csrf, email: me.email }),
    });
    expect(res.status).toBe(303);
    await until(async () => mailed.length > 0, 5000);
    const [mail] = mailed;
    expect(mail.path).toBe("/emails");
    expect(mail.authorization).toBe(`Bearer ${VARS.MAIL_HTTP_KEY}`);
    expect(mail.body).toMatchObject({ from: VARS.MAIL_FROM, to: me.email, subject: "Reset password instructions" });
    expect(mail.body.text).toMatch(new RegExp(`${VARS.ISSUER}/users/password/edit\\?reset_password_token=[0-9a-f]{64}`));
  });
});

describe("every variable of src/config-variables.ts has an effect test in this file", () => {
  it("each name in src/config-variables.ts appears in a test title above", () => {
    const source = readFileSync(__filename, "utf8");
    const titles = [...source.matchAll(/\bit(?:\.concurrent)?\(\s*"([^"]+)"/g)].map((m) => m[1]).join("\n");
    const untested = VARIABLES.map((v) => v.name).filter((n) => !new RegExp(`\\b${n}\\b`).test(titles));
    expect(untested).toEqual([]);
  });
});

describe("README's configuration table and the code list the same variables", () => {
  it("every row of src/config-variables.ts has a README row, and every README row is a variable", () => {
    const readme = readFileSync(path.join(ROOT_DIR, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Other commands"));
    const documented = new Set<string>();
    for (const line of section.split("\n").filter((l) => l.startsWith("| `"))) {
      const firstCell = line.split("|")[1];
      for (const m of firstCell.matchAll(/`([A-Z0-9_]+)`/g)) documented.add(m[1]);
    }
    expect([...documented].sort()).toEqual(VARIABLES.map((v) => v.name).sort());
  });
});
