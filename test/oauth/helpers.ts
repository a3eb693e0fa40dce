import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { sha256Base64Url } from "../../src/crypto/hash";
import { toBase64Url } from "../../src/crypto/random";
import { createApplication, type NewApplication } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { users } from "../../src/db/schema/accounts";
import { Browser, signedInUser } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUser, unique } from "../helpers/fixtures";

/**
 * Helpers that drive the OAuth flows over HTTP, as a browser and a client would: sign in with the
 * sign-in form, open /oauth/authorize, press Authorize, exchange at /oauth/token.
 */
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

export { TEST_PASSWORD, call, makeUser, unique };
