import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { getDb } from "../../src/db/client";
import { createPersonalAccessToken } from "../../src/db/personal-access-tokens";
import { createUser } from "../../src/db/users";
import { hashPassword } from "../../src/crypto/password";

/**
 * Test fixtures built through the service's own repositories on the real D1 binding.
 * Storage is shared by the tests of one file, so names are made unique.
 */
let seq = 0;
export function unique(prefix: string): string {
  seq += 1;
  return `${prefix}${Date.now().toString(36)}${seq}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

export const TEST_PASSWORD = "correct horse battery staple";

/**
 * TEST_PASSWORD hashed once per runtime, at TEST_PASSWORD_ITERATIONS: the files of a lane create
 * thousands of users with it and sign in about 900 times, and at the service's 100,000 PBKDF2
 * iterations each hash or check is about 30 ms of CPU. Like Django's and Devise's test settings,
 * fixture users get a cheap hash; the check runs the same code (the count is read from the stored
 * hash), and every password the service itself hashes (sign-up, change, reset, users the API
 * creates) still has 100,000 iterations. Every user holding the same salt and hash is harmless here.
 */
const TEST_PASSWORD_ITERATIONS = 1000;
let testPasswordHash: Promise<string> | undefined;

export async function makeUser(opts: { isAdmin?: boolean; username?: string; password?: string } = {}) {
  const username = opts.username ?? unique("user");
  const password = opts.password ?? TEST_PASSWORD;
  return createUser(getDb(env.DB), {
    username,
    name: `Test ${username}`,
    email: `${username}@example.com`,
    password,
    passwordHash: password === TEST_PASSWORD ? await (testPasswordHash ??= hashPassword(TEST_PASSWORD, TEST_PASSWORD_ITERATIONS)) : undefined,
    isAdmin: opts.isAdmin ?? false,
  });
}

/** A personal access token for the user, valid for 30 days unless told otherwise. */
export async function makePat(userId: number, scopes: string[] = ["api"], expiresAt?: string) {
  const expiry = expiresAt ?? new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10);
  const { token } = await createPersonalAccessToken(getDb(env.DB), { userId, name: unique("pat"), scopes, expiresAt: expiry });
  return token;
}

/** A user and a token for it in one call. */
export async function makeUserWithToken(opts: { isAdmin?: boolean; scopes?: string[] } = {}) {
  const user = await makeUser({ isAdmin: opts.isAdmin });
  const token = await makePat(user.id, opts.scopes ?? ["api"]);
  return { user, token };
}

/**
 * Calls the Worker under test (its default export) as a client would, from this test file's own
 * client address (test/setup/apply-migrations.ts) unless the request names one.
 */
export function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const headers = fromTestAddress(new Headers(init.headers));
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  const url = path.startsWith("http") ? path : `http://localhost${path}`;
  return exports.default.fetch(new Request(url, { ...init, headers }));
}

/** Sets this test file's client address (test/setup/apply-migrations.ts) unless the headers name one. */
export function fromTestAddress(headers: Headers): Headers {
  const address = (globalThis as { testClientAddress?: string }).testClientAddress;
  if (address && !headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", address);
  return headers;
}

/** call() from one client address, in CF-Connecting-IP as Cloudflare sets it (throttle and lockout tests). */
export function callFrom(ip: string): typeof call {
  return (path, init = {}) => call(path, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), "CF-Connecting-IP": ip } });
}

export function json(body: unknown): RequestInit {
  return { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } };
}

export function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields);
}
