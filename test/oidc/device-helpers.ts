import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { NewApplication } from "../../src/db/applications";
import { textOf, type Browser } from "../helpers/browser";
import { call, makeApp, tokenRequest } from "../oauth/helpers";

/** The device authorization grant (RFC 8628) driven over HTTP, as a device and a person drive it. */
export const GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export function authorizeDevice(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return call("/oauth/authorize_device", { method: "POST", body: new URLSearchParams(fields), headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers } });
}

export async function start(scopes = ["api", "read_user"], requested?: string, appOpts: Partial<NewApplication> = {}) {
  const { app, secret } = await makeApp({ confidential: false, scopes, ...appOpts });
  const res = await authorizeDevice({ client_id: app.uid, ...(requested ? { scope: requested } : {}) });
  expect(res.status).toBe(200);
  return { app, secret, auth: (await res.json()) as DeviceAuthorization };
}

/** Lets the poll interval pass, as a well-behaved client waits. */
export async function waitInterval(deviceCode: string) {
  const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(deviceCode)))].map((b) => b.toString(16).padStart(2, "0")).join("");
  await env.DB.prepare("UPDATE oauth_device_grants SET last_polled_at = last_polled_at - 60000 WHERE device_code_hash = ?").bind(hash).run();
}

export async function poll(clientId: string, deviceCode: string) {
  await waitInterval(deviceCode);
  return tokenRequest({ grant_type: GRANT, client_id: clientId, device_code: deviceCode });
}

export const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

/** The person's side: /oauth/device, type the code, press a button. */
export async function enterCode(browser: Browser, userCode: string, decision: "approve" | "deny" = "approve") {
  await browser.get("/oauth/device");
  const consent = await browser.post("/oauth/device", { user_code: userCode });
  expect(consent.status).toBe(200);
  expect(textOf(await consent.text())).toContain("Authorize");
  return browser.post("/oauth/device/decision", { user_code: userCode.replace("-", ""), decision });
}

