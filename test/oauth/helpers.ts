import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { sha256Base64Url } from "../../src/crypto/hash";
import { toBase64Url } from "../../src/crypto/random";
import { createApplication, type NewApplication } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { users } from "../../src/db/schema/accounts";
import type { Bindings } from "../../src/env";
import { TEST_PASSWORD, call, makeUser, unique } from "../helpers/fixtures";

/**
 * Helpers that drive the OAuth flows over HTTP, as a browser and a client would: sign in with the
 * sign-in form, open /oauth/authorize, press Authorize, exchange at /oauth/token.
 */
export const ORIGIN = "http://localhost";
export const REDIRECT = "https://client.example/callback";

export async function makeApp(opts: Partial<NewApplication> = {}) {
  const { row, secret } = await createApplication(getDb(env.DB), {
    name: unique("App "),
    redirectUri: REDIRECT,
    scopes: ["api", "read_user", "read_repository"],
    ...opts,
  });
  return { app: row, secret };
}

export async function pkce() {
  const verifier = toBase64Url(crypto.getRandomValues(new Uint8Array(48)));
  return { verifier, challenge: await sha256Base64Url(verifier) };
}

/** A browser: keeps cookies between requests. */
export class Browser {
  private cookies = new Map<string, string>();

  constructor(private readonly fetcher: (path: string, init: RequestInit) => Promise<Response> = call) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    if (init.method === "POST") headers.set("Origin", ORIGIN);
    const res = await this.fetcher(path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (/max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(path, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
  }
}

export function csrfFrom(html: string): string {
  const m = /name="authenticity_token" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("no authenticity_token in page");
  return m[1];
}

/** Signs in through the sign-in form (the accounts engineer's page). */
export async function signIn(username: string, password = TEST_PASSWORD, browser = new Browser()): Promise<Browser> {
  const page = await browser.fetch("/users/sign_in");
  const res = await browser.post("/users/sign_in", {
    authenticity_token: csrfFrom(await page.text()),
    username,
    password,
    redirect_to: "/",
  });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  return browser;
}

export async function signedInUser() {
  const user = await makeUser();
  return { user, browser: await signIn(user.username) };
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return `/oauth/authorize?${q}`;
}

/** Opens the consent page and presses a button; returns the 303 response. */
export async function decide(browser: Browser, params: Record<string, string | undefined>, decision: "approve" | "deny" = "approve") {
  const page = await browser.fetch(authorizeUrl(params));
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.headers.get("location")}`);
  const html = await page.text();
  const hidden = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], decodeHtml(m[2])]));
  return browser.post("/oauth/authorize", { ...hidden, decision });
}

function decodeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Approves a code request and returns the code from the redirect. */
export async function getCode(browser: Browser, params: Record<string, string | undefined>): Promise<string> {
  const res = await decide(browser, { response_type: "code", redirect_uri: REDIRECT, state: "s1", ...params });
  const loc = new URL(res.headers.get("location")!);
  const code = loc.searchParams.get("code");
  if (!code) throw new Error(`no code: ${loc}`);
  return code;
}

export function tokenRequest(fields: Record<string, string>, opts: { basic?: [string, string]; fetcher?: typeof call } = {}) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (opts.basic) headers.Authorization = `Basic ${btoa(`${encodeURIComponent(opts.basic[0])}:${encodeURIComponent(opts.basic[1])}`)}`;
  return (opts.fetcher ?? call)("/oauth/token", { method: "POST", body: new URLSearchParams(fields), headers });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in?: number;
  created_at: number;
  scope: string;
  token_type: string;
}

/** A full PKCE flow for a fresh user and public app; returns everything a test needs. */
export async function pkceTokens(appOpts: Partial<NewApplication> = {}) {
  const { app, secret } = await makeApp({ confidential: false, ...appOpts });
  const { user, browser } = await signedInUser();
  const { verifier, challenge } = await pkce();
  const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
  const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
  if (res.status !== 200) throw new Error(`exchange failed ${res.status} ${await res.text()}`);
  return { app, secret, user, browser, verifier, tokens: (await res.json()) as Tokens };
}

export function refresh(app: { uid: string }, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest({ grant_type: "refresh_token", client_id: app.uid, refresh_token: refreshToken, ...extra });
}

export async function setUser(id: number, patch: Partial<typeof users.$inferInsert>) {
  await getDb(env.DB).update(users).set(patch).where(eq(users.id, id));
}

/** Calls the Worker with another SERVICE_VERSION (both sides of a milestone). */
const versioned = new Map<string, Bindings>();
export function callAt(version: string) {
  let e = versioned.get(version);
  if (!e) {
    e = withVars(env, { SERVICE_VERSION: version });
    versioned.set(version, e);
  }
  const bound = e;
  return async (path: string, init: RequestInit & { token?: string } = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), bound, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

export { TEST_PASSWORD, call, makeUser, unique };
