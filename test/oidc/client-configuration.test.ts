import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/crypto/hash";
import { getDb } from "../../src/db/client";
import { applications } from "../../src/db/schema/applications";
import { auditEvents } from "../../src/db/schema/accounts";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, call, getCode, pkce, tokenRequest, type Tokens } from "../oauth/helpers";
import { keyPair } from "../oauth/key-client-helpers";

let address = 0;
/** Each registration from its own client address, so the per-address registration limit is each test's own. */
async function register(body: Record<string, unknown>) {
  const res = await call("/oauth/register", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `198.51.100.${++address}` },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as ClientInformation;
}

interface ClientInformation {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  scope: string;
  token_endpoint_auth_method: string;
  registration_access_token?: string;
  registration_client_uri: string;
  dpop_bound_access_tokens: boolean;
  jwks?: unknown;
}

/** A request to the client configuration endpoint, as the client would send it. */
function configure(uri: string, method: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return call(uri, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function expectBearerRefusal(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  expect(((await res.json()) as { error: string }).error).toBe("invalid_token");
}

const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe("RFC 7592 §3: the registration answer carries the client's management credentials", () => {
  it("§3: registration_access_token (glrat-, 256 bits) and registration_client_uri under /oauth/register; D1 keeps only the token's SHA-256", async () => {
    const reg = await register({ client_name: "Managed", redirect_uris: [REDIRECT] });
    expect(reg.registration_access_token).toMatch(/^glrat-[0-9a-f]{64}$/);
    expect(reg.registration_client_uri).toBe(`http://localhost/oauth/register/${reg.client_id}`);
    const [row] = await getDb(env.DB).select().from(applications).where(eq(applications.uid, reg.client_id));
    expect(row.registrationTokenHash).toBe(await sha256Hex(reg.registration_access_token!));
    expect(JSON.stringify(row)).not.toContain(reg.registration_access_token!.slice(6));
  });
});

describe("RFC 7592 §2.1 client read request", () => {
  it("§2.1: GET with the registration access token answers the registration as stored, no-store, without echoing the token", async () => {
    const reg = await register({ client_name: "Reader", redirect_uris: [REDIRECT], scope: "read_user openid", application_type: "web" });
    const res = await configure(reg.registration_client_uri, "GET", reg.registration_access_token!);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const read = (await res.json()) as ClientInformation & { application_type: string };
    expect(read).toMatchObject({ client_id: reg.client_id, client_name: reg.client_name, redirect_uris: [REDIRECT], scope: "read_user openid", application_type: "web" });
    expect(read.registration_client_uri).toBe(reg.registration_client_uri);
    expect(read).not.toHaveProperty("registration_access_token");
    // The token presented stays current after a read.
    expect((await configure(reg.registration_client_uri, "GET", reg.registration_access_token!)).status).toBe(200);
  });

  it("§2.1 with RFC 6750 §3.1: no token, an unknown token, a token without the prefix and another client's token are 401 with WWW-Authenticate: Bearer", async () => {
    const a = await register({ client_name: "A", redirect_uris: [REDIRECT] });
    const b = await register({ client_name: "B", redirect_uris: [REDIRECT] });
    for (const token of [null, `glrat-${"0".repeat(64)}`, a.registration_access_token!.slice(6), b.registration_access_token!]) {
      await expectBearerRefusal(await configure(a.registration_client_uri, "GET", token));
    }
  });

  it("§2.1: a client that does not exist is 401, like a bad token (nothing tells a guesser which client ids exist)", async () => {
    const a = await register({ client_name: "A", redirect_uris: [REDIRECT] });
    await expectBearerRefusal(await configure("/oauth/register/no-such-client", "GET", a.registration_access_token!));
  });
});

describe("RFC 7592 §2.2 client update request", () => {
  it("§2.2: PUT replaces redirect URIs, name and scope, answers a new registration access token; the old one stops working, the new one works", async () => {
    const reg = await register({ client_name: "Before", redirect_uris: [REDIRECT], scope: "read_user", dpop_bound_access_tokens: true });
    const res = await configure(reg.registration_client_uri, "PUT", reg.registration_access_token!, {
      client_id: reg.client_id,
      client_name: "After",
      redirect_uris: ["https://client.example/new-callback", "http://127.0.0.1:8765/cb"],
      scope: "read_api openid",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const updated = (await res.json()) as ClientInformation;
    expect(updated).toMatchObject({
      client_id: reg.client_id,
      client_name: "[Unverified Dynamic Application] After",
      redirect_uris: ["https://client.example/new-callback", "http://127.0.0.1:8765/cb"],
      scope: "read_api openid",
      // Omitted: back to its default (§2.2, omitted fields are treated as empty).
      dpop_bound_access_tokens: false,
    });
    expect(updated.registration_access_token).toMatch(/^glrat-[0-9a-f]{64}$/);
    expect(updated.registration_access_token).not.toBe(reg.registration_access_token);
    await expectBearerRefusal(await configure(reg.registration_client_uri, "GET", reg.registration_access_token!));
    const read = (await (await configure(reg.registration_client_uri, "GET", updated.registration_access_token!)).json()) as ClientInformation;
    expect(read.redirect_uris).toEqual(["https://client.example/new-callback", "http://127.0.0.1:8765/cb"]);
    const audit = await getDb(env.DB)
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "application_updated"), eq(auditEvents.entityType, "oauth_application")));
    expect(audit.some((r) => JSON.parse(r.details).application_id === reg.client_id && JSON.parse(r.details).updated_by === "client")).toBe(true);
  });

  it("§2.2: sending back what a read answered keeps the name as it was (the unverified prefix is not added twice)", async () => {
    const reg = await register({ client_name: "Echo", redirect_uris: [REDIRECT] });
    const read = (await (await configure(reg.registration_client_uri, "GET", reg.registration_access_token!)).json()) as Record<string, unknown>;
    const res = await configure(reg.registration_client_uri, "PUT", reg.registration_access_token!, { ...read, registration_access_token: reg.registration_access_token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as ClientInformation).client_name).toBe("[Unverified Dynamic Application] Echo");
  });

  it("§2.2: the keys (jwks) change with the registration's rules: private_key_jwt with a key set; both jwks and jwks_uri is invalid_client_metadata", async () => {
    const reg = await register({ client_name: "Keys", redirect_uris: [REDIRECT] });
    const key = await keyPair();
    const both = await configure(reg.registration_client_uri, "PUT", reg.registration_access_token!, {
      client_id: reg.client_id,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [key.jwk] },
      jwks_uri: "https://keys.example/jwks.json",
    });
    expect(both.status).toBe(400);
    expect(await errorOf(both)).toBe("invalid_client_metadata");
    const res = await configure(reg.registration_client_uri, "PUT", reg.registration_access_token!, {
      client_id: reg.client_id,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [key.jwk] },
    });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as ClientInformation;
    expect(updated.token_endpoint_auth_method).toBe("private_key_jwt");
    expect(updated.jwks).toEqual({ keys: [key.jwk] });
    const [row] = await getDb(env.DB).select().from(applications).where(eq(applications.uid, reg.client_id));
    expect(row.confidential).toBe(true);
  });

  it("§2.2 errors: invalid_redirect_uri and invalid_client_metadata as at registration, a missing or other client_id, a client_secret, a mismatched registration_client_uri; a refused update keeps the token", async () => {
    const reg = await register({ client_name: "Strict", redirect_uris: [REDIRECT] });
    const base = { client_id: reg.client_id, redirect_uris: [REDIRECT] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ ...base, scope: "api sudo" }, "invalid_client_metadata"],
      [{ ...base, token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT] }, "invalid_client_metadata"],
      [{ ...base, client_id: "another" }, "invalid_client_metadata"],
      [{ ...base, client_secret: "x" }, "invalid_client_metadata"],
      [{ ...base, registration_client_uri: "https://elsewhere.example/oauth/register/x" }, "invalid_client_metadata"],
    ];
    for (const [body, error] of cases) {
      const res = await configure(reg.registration_client_uri, "PUT", reg.registration_access_token!, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await errorOf(res)).toBe(error);
    }
    const notJson = await call(reg.registration_client_uri, { method: "PUT", body: "{", headers: { "Content-Type": "application/json", Authorization: `Bearer ${reg.registration_access_token}` } });
    expect(notJson.status).toBe(400);
    expect((await configure(reg.registration_client_uri, "GET", reg.registration_access_token!)).status).toBe(200);
  });

  it("§2.2: a bad token is 401 before the body is looked at", async () => {
    const reg = await register({ client_name: "X", redirect_uris: [REDIRECT] });
    await expectBearerRefusal(await configure(reg.registration_client_uri, "PUT", `glrat-${"1".repeat(64)}`, { client_id: reg.client_id, redirect_uris: [REDIRECT] }));
  });
});

describe("RFC 7592 §2.3 client delete request", () => {
  it("§2.3: DELETE is 204; the client, its token and its grants end (the application_deleted change, audited as the client's own deletion)", async () => {
    const reg = await register({ client_name: "Leaving", redirect_uris: [REDIRECT], scope: "read_user" });
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: reg.client_id, scope: "read_user", code_challenge: challenge, code_challenge_method: "S256" });
    const exchanged = await tokenRequest({ grant_type: "authorization_code", client_id: reg.client_id, code, redirect_uri: REDIRECT, code_verifier: verifier });
    const tokens = (await exchanged.json()) as Tokens;
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);

    const res = await configure(reg.registration_client_uri, "DELETE", reg.registration_access_token!);
    expect(res.status).toBe(204);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
    const refreshed = await tokenRequest({ grant_type: "refresh_token", client_id: reg.client_id, refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(400);
    expect(["invalid_client", "invalid_grant"]).toContain(await errorOf(refreshed));
    // §2.3: afterwards the client does not exist, so its token is 401 at every method.
    await expectBearerRefusal(await configure(reg.registration_client_uri, "GET", reg.registration_access_token!));
    await expectBearerRefusal(await configure(reg.registration_client_uri, "DELETE", reg.registration_access_token!));
    const [row] = await getDb(env.DB).select().from(applications).where(eq(applications.uid, reg.client_id));
    expect(row).toBeUndefined();
    const deleted = await getDb(env.DB).select().from(auditEvents).where(eq(auditEvents.action, "application_deleted"));
    const mine = deleted.find((r) => JSON.parse(r.details).application_id === reg.client_id)!;
    expect(JSON.parse(mine.details).deleted_by).toBe("client");
    expect(mine.authorId).toBeNull();
  });
});
