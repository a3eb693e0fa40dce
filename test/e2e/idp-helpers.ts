import { createServer, type Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./browser";
import { afterAll, beforeAll, inject } from "vitest";

/**
 * Shared by the identity-provider end-to-end tests (OpenID Connect, device flow, dynamic
 * registration): an administrator token, a fresh user, a loopback redirect URI and Chromium.
 */
export const baseURL = inject("baseURL");
const rootPassword = inject("rootPassword");

export async function rootToken(): Promise<string> {
  const res = await fetch(`${baseURL}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", username: "root", password: rootPassword }),
  });
  if (res.status !== 200) throw new Error(`root token: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function api(path: string, token: string, init: RequestInit = {}) {
  return fetch(`${baseURL}/api/v4${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(init.headers ?? {}) } });
}

export const USER_PASSWORD = "e2e-Idp-Password-73";

export async function createUser(admin: string, prefix: string) {
  const username = `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  const res = await api("/users", admin, {
    method: "POST",
    body: JSON.stringify({ username, name: `E2E ${prefix}`, email: `${username}@example.com`, password: USER_PASSWORD, skip_confirmation: true }),
  });
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: number; username: string; email: string; name: string };
}

export async function createApp(admin: string, body: Record<string, unknown>) {
  const res = await api("/applications", admin, { method: "POST", body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`create application: ${res.status} ${await res.text()}`);
  return (await res.json()) as { application_id: string; secret: string };
}

/** A loopback redirect URI (RFC 8252) whose page just says the browser arrived. */
export async function callbackServer(): Promise<{ server: Server; redirectUri: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<p>Signed in. You can close this window.</p>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, redirectUri: `http://127.0.0.1:${(server.address() as { port: number }).port}/callback` };
}

export async function signIn(page: Page, username: string) {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(USER_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opens the authorization URL, signs in, presses Authorize; returns the callback URL the browser reached. */
export async function authorizeInBrowser(browser: Browser, url: URL, username: string, redirectUri: string): Promise<{ callback: URL; consentText: string }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url.href);
    await signIn(page, username);
    await page.getByRole("button", { name: "Authorize" }).waitFor();
    const consentText = (await page.textContent("body")) ?? "";
    const arrived = page.waitForURL((u) => u.href.startsWith(redirectUri));
    await page.getByRole("button", { name: "Authorize" }).click();
    await arrived;
    return { callback: new URL(page.url()), consentText };
  } finally {
    await context.close();
  }
}

/** Chromium and a loopback callback for the tests of one file, started before and stopped after them. */
export function browserAndCallback(): { browser: Browser; redirectUri: string } {
  const fixture = {} as { browser: Browser; redirectUri: string; server?: Server };
  beforeAll(async () => {
    fixture.browser = await launchChromium();
    const cb = await callbackServer();
    fixture.server = cb.server;
    fixture.redirectUri = cb.redirectUri;
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await new Promise((r) => (fixture.server ? fixture.server.close(r) : r(undefined)));
  });
  return fixture;
}
