import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { base32Decode, totp } from "../../src/crypto/totp";
import { launchChromium } from "./browser";

/**
 * Shared by the browser tests of the pages (test/e2e/pages-*.test.ts): Debian's Chromium through
 * playwright-core (./browser.ts), users made through the admin API with a token of root,
 * screenshots in test-results/.
 */

const SHOTS = path.resolve(__dirname, "../../test-results/pages");

/** Every test ends with a screenshot of the page it ends on. */
export async function shot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? true });
  return file;
}

let seq = 0;
export function unique(prefix: string): string {
  seq += 1;
  return `${prefix}${Date.now().toString(36)}${seq}${Math.floor(Math.random() * 1e5).toString(36)}`;
}

export const PASSWORD = "e2e-user-Password-77";

/** An access token by the password grant (no client; the default scopes unless `scope` is given). */
export async function passwordGrant(base: string, username: string, password: string, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: "password", username, password });
  if (scope) form.set("scope", scope);
  const res = await fetch(`${base}/oauth/token`, { method: "POST", body: form });
  if (res.status !== 200) throw new Error(`password grant for ${username}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** An api token of root by the password grant (root has no two-factor). */
export function rootToken(base: string, rootPassword: string, scope?: string): Promise<string> {
  return passwordGrant(base, "root", rootPassword, scope);
}

/** A JSON call of /api/v4 with a bearer token; throws with the status and body unless it succeeds. */
/** A personal access token of root with scope api, valid 30 days (for clients that take a PAT). */
export async function rootPat(base: string, rootPassword: string, name: string): Promise<string> {
  const access_token = await rootToken(base, rootPassword);
  const me = (await (await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${access_token}` } })).json()) as { id: number };
  const created = await fetch(`${base}/api/v4/users/${me.id}/personal_access_tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name, scopes: ["api"], expires_at: new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10) }),
  });
  if (created.status !== 201) throw new Error(`creating a personal access token answered ${created.status}`);
  return ((await created.json()) as { token: string }).token;
}

export async function apiCall(base: string, method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/api/v4${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function createUser(base: string, adminToken: string, prefix = "user"): Promise<{ id: number; username: string; password: string }> {
  const username = unique(prefix);
  const res = await fetch(`${base}/api/v4/users`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ username, name: `E2E ${username}`, email: `${username}@example.com`, password: PASSWORD, skip_confirmation: true }),
  });
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: number };
  return { id: body.id, username, password: PASSWORD };
}

/**
 * The set-up every pages test file shares: Chromium launched before the file's tests and closed
 * after them, and root's token for making users. Call once at the top level of a test file.
 */
export function pagesSession(): {
  base: string;
  newContext: () => Promise<BrowserContext>;
  createUser: (prefix?: string) => ReturnType<typeof createUser>;
} {
  const base = inject("baseURL");
  let browser: Browser | undefined;
  let admin = "";
  beforeAll(async () => {
    browser = await launchChromium();
    admin = await rootToken(base, inject("rootPassword"));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    base,
    newContext: () => browser!.newContext(),
    createUser: (prefix) => createUser(base, admin, prefix),
  };
}

/** Fills the sign-in form by its labels, as a person would. */
export async function signIn(page: Page, base: string, username: string, password: string, redirectTo?: string): Promise<void> {
  await page.goto(`${base}/users/sign_in${redirectTo ? `?redirect_to=${encodeURIComponent(redirectTo)}` : ""}`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("load");
}

/** The code of the step `offset` steps from now (the next step is within RFC 6238's allowed drift). */
export function totpCode(secret: string, offset = 0): Promise<string> {
  return totp(base32Decode(secret), Date.now() / 1000 + offset * 30);
}

/** A small HTTP server on a free loopback port: an OAuth client's callback, or another site. */
export async function startServer(
  handler: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const { createServer } = await import("node:http");
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A client callback that shows what it received, so the browser lands on a readable page. */
export function callbackPage(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  const rows = [...url.searchParams].map(([k, v]) => `<tr><th>${k}</th><td><code>${v.replace(/[<>&"]/g, "")}</code></td></tr>`).join("");
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  res.end(`<!DOCTYPE html><html><head><title>Client callback</title></head><body style="font:16px system-ui;margin:2rem"><h1>Third-party client: callback received</h1><table>${rows}</table></body></html>`);
}

/** Registers an application through /profile/applications and reads its ID and secret off the page. */
export async function registerApplication(
  page: Page,
  base: string,
  opts: { name: string; redirectUri: string; scopes: string[]; confidential?: boolean },
): Promise<{ clientId: string; secret: string }> {
  await page.goto(`${base}/profile/applications`);
  await page.getByLabel("Name", { exact: true }).fill(opts.name);
  await page.getByLabel("Redirect URI", { exact: true }).fill(opts.redirectUri);
  if (opts.confidential === false) await page.getByLabel("Confidential").uncheck();
  for (const scope of opts.scopes) await page.getByLabel(scope, { exact: true }).check();
  await page.getByRole("button", { name: "Save application" }).click();
  await page.waitForLoadState("load");
  const clientId = (await page.locator("#application_id").textContent())!.trim();
  const secret = (await page.locator("#client_secret").textContent())!.trim();
  return { clientId, secret };
}

export function authorizeUrl(base: string, q: Record<string, string>): string {
  return `${base}/oauth/authorize?${new URLSearchParams({ response_type: "code", ...q })}`;
}
