import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import app from "../../src/app";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";
import { fromTestAddress } from "./fixtures";

/**
 * Calls the app at another service version: the same bindings (D1, R2, DOs) with SERVICE_VERSION
 * replaced, so a test can check both sides of a milestone (DESIGN, Service versions).
 * One env copy per version, so per-env caches (config, first start) work as in production.
 */
const envs = new Map<string, Bindings>();

export function envAt(version: string): Bindings {
  let e = envs.get(version);
  if (!e) {
    e = withVars(env, { SERVICE_VERSION: version });
    envs.set(version, e);
  }
  return e;
}

export async function callAt(version: string, path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const headers = fromTestAddress(new Headers(init.headers));
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  const url = path.startsWith("http") ? path : `http://localhost${path}`;
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(url, { ...init, headers }), envAt(version), ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** `callAt` bound to one version: a fetcher for helpers that take one (Browser, tokenRequest). */
export function callerAt(version: string): (path: string, init?: RequestInit & { token?: string }) => Promise<Response> {
  return (path, init) => callAt(version, path, init);
}

/** A JSON request body with a method (POST unless told). */
export function body(data: unknown, method = "POST"): RequestInit {
  return { method, body: JSON.stringify(data), headers: { "Content-Type": "application/json" } };
}
