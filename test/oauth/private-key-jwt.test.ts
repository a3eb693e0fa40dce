import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { validateApplicationInput } from "../../src/domain/application-input";
import { checkKeySet } from "../../src/domain/client-key-set";
import { clientVerificationKeys, forgetFetchedKeySets } from "../../src/oauth/client-keys";
import { authorizeDevice } from "../oidc/device-helpers";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, getCode, makeApp, pkce } from "./helpers";
import { ISSUER, TOKEN_ENDPOINT, assertionFields, keyPair, makeKeyClient, signAssertion } from "./key-client-helpers";

/**
 * Key-based client authentication: the application's key set (RFC 7591 §2 jwks / jwks_uri) and
 * private_key_jwt (RFC 7523 §2.2 and §3, OIDC Core §9) at every endpoint that authenticates clients.
 */
const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", body: new URLSearchParams(fields), headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers } });

const introspectAs = (fields: Record<string, string>, token = "unknown-token") => post("/oauth/introspect", { token, ...fields });

async function errorOf(res: Response) {
  return ((await res.json()) as { error: string; error_description?: string });
}

const input = { name: "Keys", redirectUri: "https://client.example/cb", scopes: ["api"] };

describe("application key sets (RFC 7591 §2 jwks, jwks_uri, token_endpoint_auth_method)", () => {
  it("§2: jwks holds public asymmetric keys only, within bounds", async () => {
    const { jwk } = await keyPair();
    expect(checkKeySet({ keys: [jwk] }).ok).toBe(true);
    expect(checkKeySet(JSON.stringify({ keys: [jwk] })).ok).toBe(true);
    expect(checkKeySet({ keys: [{ ...jwk, d: "private" }] })).toMatchObject({ ok: false, reason: expect.stringMatching(/public keys only/) });
    expect(checkKeySet({ keys: [{ kty: "oct", k: "c2VjcmV0" }] }).ok).toBe(false);
    expect(checkKeySet({ keys: [] }).ok).toBe(false);
    expect(checkKeySet({ keys: Array(11).fill(jwk) }).ok).toBe(false);
    expect(checkKeySet("not json").ok).toBe(false);
    expect(checkKeySet({ keys: [{ ...jwk, use: "enc" }] }).ok).toBe(false);
  });

  it("§2: jwks and jwks_uri are exclusive; private_key_jwt needs one; jwks_uri is https on a public host", async () => {
    const { jwk } = await keyPair();
    const both = validateApplicationInput({ ...input, jwks: { keys: [jwk] }, jwksUri: "https://keys.example/jwks.json" }, false);
    expect(both).toMatchObject({ ok: false, errors: { jwks_uri: ["cannot be given together with jwks"] } });
    const keyless = validateApplicationInput({ ...input, tokenEndpointAuthMethod: "private_key_jwt" }, false);
    expect(keyless).toMatchObject({ ok: false, errors: { token_endpoint_auth_method: [expect.stringMatching(/needs jwks/)] } });
    for (const uri of ["http://keys.example/jwks.json", "https://10.0.0.1/jwks.json", "https://localhost/jwks", "https://u:p@keys.example/j"]) {
      expect(validateApplicationInput({ ...input, jwksUri: uri }, false).ok).toBe(false);
    }
    const publicKeyClient = validateApplicationInput({ ...input, jwks: { keys: [jwk] }, tokenEndpointAuthMethod: "private_key_jwt", confidential: false }, false);
    expect(publicKeyClient.ok).toBe(false);
    const ok = validateApplicationInput({ ...input, jwksUri: "https://keys.example/jwks.json", tokenEndpointAuthMethod: "private_key_jwt", confidential: true }, false);
    expect(ok).toMatchObject({ ok: true, value: { jwksUri: "https://keys.example/jwks.json", tokenEndpointAuthMethod: "private_key_jwt", jwks: null } });
  });

  it("the admin API registers and shows an application's keys and method", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const { jwk } = await keyPair();
    const res = await call("/api/v4/applications", {
      ...json({ name: "Key app", redirect_uri: "https://client.example/cb", scopes: "api", jwks: { keys: [jwk] }, token_endpoint_auth_method: "private_key_jwt" }),
      token: admin.token,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] }, jwks_uri: null });
    const bad = await call("/api/v4/applications", {
      ...json({ name: "Key app", redirect_uri: "https://client.example/cb", scopes: "api", jwks: { keys: [{ ...jwk, d: "x" }] } }),
      token: admin.token,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/public keys only/);
  });

  it("RFC 7591 §2: dynamic registration accepts private_key_jwt with jwks (confidential, no secret issued)", async () => {
    const { jwk } = await keyPair();
    const res = await call(
      "/oauth/register",
      json({ redirect_uris: ["https://agent.example/cb"], token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } }),
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } });
    expect(body.client_secret).toBeUndefined();
    const keyless = await call("/oauth/register", json({ redirect_uris: ["https://agent.example/cb"], token_endpoint_auth_method: "private_key_jwt" }));
    expect(keyless.status).toBe(400);
    expect((await errorOf(keyless)).error).toBe("invalid_client_metadata");
    const secret = await call("/oauth/register", json({ redirect_uris: ["https://agent.example/cb"], token_endpoint_auth_method: "client_secret_basic" }));
    expect((await errorOf(secret)).error).toBe("invalid_client_metadata");
  });
});

describe("jwks_uri: fetched through the public-host guard, cached within bounds", () => {
  let served: Map<string, { keys: unknown[] }>;
  let fetched: string[];
  const realFetch = globalThis.fetch;
  beforeEach(() => {
    served = new Map();
    fetched = [];
    forgetFetchedKeySets();
    vi.spyOn(globalThis, "fetch").mockImplementation(async (req: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof req === "string" ? req : req instanceof URL ? req.href : req.url;
      const set = served.get(url);
      if (!set) return realFetch(req, init);
      fetched.push(url);
      return new Response(JSON.stringify(set), { headers: { "Content-Type": "application/json", "Cache-Control": "max-age=600" } });
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it("RFC 7523 §2.2: an assertion verifies with the key at jwks_uri; the set is fetched once and cached", async () => {
    const key = await keyPair();
    const uri = `https://keys.example/${crypto.randomUUID()}.json`;
    served.set(uri, { keys: [key.jwk] });
    const { app } = await makeApp({ jwksUri: uri, tokenEndpointAuthMethod: "private_key_jwt" });
    for (let i = 0; i < 2; i++) {
      const res = await introspectAs(assertionFields(await signAssertion(app.uid, key.privateKey, key.kid)));
      expect(res.status).toBe(200);
    }
    expect(fetched).toEqual([uri]);
  });

  it("a key not in the cached set is looked for again only once the minimum cache time has passed (no fetch loop)", async () => {
    const key = await keyPair();
    const rotated = await keyPair();
    const uri = `https://keys.example/${crypto.randomUUID()}.json`;
    served.set(uri, { keys: [key.jwk] });
    const { app } = await makeApp({ jwksUri: uri, tokenEndpointAuthMethod: "private_key_jwt" });
    expect((await introspectAs(assertionFields(await signAssertion(app.uid, key.privateKey, key.kid)))).status).toBe(200);
    served.set(uri, { keys: [rotated.jwk] });
    const unknown = await introspectAs(assertionFields(await signAssertion(app.uid, rotated.privateKey, rotated.kid)));
    expect(unknown.status).toBe(401);
    expect(fetched).toHaveLength(1);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    try {
      expect((await introspectAs(assertionFields(await signAssertion(app.uid, rotated.privateKey, rotated.kid)))).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
    expect(fetched).toHaveLength(2);
  });

  it("a jwks_uri on a private address is never fetched, even when stored", async () => {
    const key = await keyPair();
    const keys = clientVerificationKeys({ uid: "c", jwks: null, jwksUri: "https://192.168.1.10/jwks.json" }, false)!;
    await expect(keys({ alg: "ES256", kid: key.kid }, { payload: "", signature: "" } as never)).rejects.toThrow(/public host/);
    expect(fetched).toEqual([]);
  });
});

describe("private_key_jwt client authentication (RFC 7523 §2.2, §3; OIDC Core §9)", () => {
  it("§2.2: a signed assertion authenticates the client at introspection; without it the client is refused", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const ok = await introspectAs(assertionFields(await signAssertion(app.uid, privateKey, kid)));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ active: false });
    const none = await introspectAs({ client_id: app.uid });
    expect(none.status).toBe(401);
  });

  it("§2.2: the assertion names the client; a different client_id beside it is refused", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const other = await makeApp();
    const res = await introspectAs({ client_id: other.app.uid, ...assertionFields(await signAssertion(app.uid, privateKey, kid)) });
    expect(res.status).toBe(401);
  });

  it("§3 item 7: a jti is accepted once; the same assertion again is refused", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const assertion = await signAssertion(app.uid, privateKey, kid);
    expect((await introspectAs(assertionFields(assertion))).status).toBe(200);
    const again = await introspectAs(assertionFields(assertion));
    expect(again.status).toBe(401);
    expect((await errorOf(again)).error_description).toMatch(/jti has been used/);
    const [a, b] = await Promise.all([0, 1].map(async () => introspectAs(assertionFields(await signAssertion(app.uid, privateKey, kid, { jti: "same-jti" })))));
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });

  it("§3 item 3: aud may be the issuer or the token endpoint URL; anything else is refused", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    for (const aud of [ISSUER, TOKEN_ENDPOINT, `${ISSUER}/oauth/introspect`]) {
      expect((await introspectAs(assertionFields(await signAssertion(app.uid, privateKey, kid, { aud })))).status).toBe(200);
    }
    const wrong = await introspectAs(assertionFields(await signAssertion(app.uid, privateKey, kid, { aud: "https://other.example/oauth/token" })));
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).error_description).toMatch(/aud/);
  });

  it("§3 items 1, 2, 4: iss and sub are the client_id; exp is required, not past, and at most five minutes ahead", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const refused = async (claims: Parameters<typeof signAssertion>[3]) => (await introspectAs(assertionFields(await signAssertion(app.uid, privateKey, kid, claims)))).status;
    expect(await refused({ iss: "someone-else" })).toBe(401);
    expect(await refused({ expiresIn: null })).toBe(401);
    expect(await refused({ expiresIn: -120 })).toBe(401);
    expect(await refused({ expiresIn: 3600 })).toBe(401);
    expect(await refused({ jti: null })).toBe(401);
    expect(await refused({ expiresIn: 240 })).toBe(200);
  });

  it("§3 item 5: a signature by a key outside the client's set, or with HMAC, is refused", async () => {
    const { app, kid } = await makeKeyClient();
    const stranger = await keyPair();
    expect((await introspectAs(assertionFields(await signAssertion(app.uid, stranger.privateKey, kid)))).status).toBe(401);
    const hmac = new Uint8Array(32);
    expect((await introspectAs(assertionFields(await signAssertion(app.uid, hmac as never, kid, {}, "HS256"))))).toMatchObject({ status: 401 });
  });

  it("OIDC Core §9: a client registered for private_key_jwt cannot use its secret, and a secret client cannot send an assertion", async () => {
    const { app: keyApp } = await makeKeyClient();
    const secretRes = await post("/oauth/introspect", { token: "x" }, { Authorization: `Basic ${btoa(`${keyApp.uid}:anything`)}` });
    expect(secretRes.status).toBe(401);
    const secretApp = await makeApp();
    const key = await keyPair();
    const res = await introspectAs(assertionFields(await signAssertion(secretApp.app.uid, key.privateKey, key.kid)));
    expect(res.status).toBe(401);
    expect((await errorOf(res)).error_description).toMatch(/does not authenticate with private_key_jwt/);
  });

  it("RFC 6749 §2.3: a request that uses two authentication methods is refused", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const res = await introspectAs({ client_secret: "x", ...assertionFields(await signAssertion(app.uid, privateKey, kid)) });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error).toBe("invalid_request");
    const wrongType = await introspectAs({ client_assertion_type: "urn:example", client_assertion: "x" });
    expect((await errorOf(wrongType)).error).toBe("invalid_client");
  });

  it("one mechanism: the assertion authenticates at revocation (RFC 7009 §2.1) and device authorization (RFC 8628 §3.1) too", async () => {
    const { app, privateKey, kid } = await makeKeyClient({ scopes: ["api", "read_user"] });
    const revoke = await post("/oauth/revoke", { token: "gloat-unknown", ...assertionFields(await signAssertion(app.uid, privateKey, kid, { aud: ISSUER })) });
    expect(revoke.status).toBe(200);
    const device = await authorizeDevice({ scope: "api", ...assertionFields(await signAssertion(app.uid, privateKey, kid)) });
    expect(device.status).toBe(200);
    expect(((await device.json()) as { device_code: string }).device_code).toBeTruthy();
    const unsigned = await authorizeDevice({ client_id: app.uid, scope: "api" });
    expect(unsigned.status).toBe(401);
  });

  it("RFC 6749 §4.1.3, §6: the code exchange and the refresh accept the assertion as the confidential client's authentication", async () => {
    const { app, privateKey, kid } = await makeKeyClient();
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const exchanged = await post("/oauth/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...assertionFields(await signAssertion(app.uid, privateKey, kid)),
    });
    expect(exchanged.status).toBe(200);
    const { refresh_token } = (await exchanged.json()) as { refresh_token: string };
    const refreshed = await post("/oauth/token", { grant_type: "refresh_token", refresh_token, ...assertionFields(await signAssertion(app.uid, privateKey, kid)) });
    expect(refreshed.status).toBe(200);
    const forged = await post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: ((await refreshed.json()) as { refresh_token: string }).refresh_token,
      ...assertionFields(await signAssertion(app.uid, (await keyPair()).privateKey, kid)),
    });
    expect(forged.status).toBe(401);
  });
});

describe("discovery (RFC 8414 §2)", () => {
  it("advertises private_key_jwt and the signing algorithms for the token, revocation and introspection endpoints", async () => {
    const body = (await (await call("/.well-known/oauth-authorization-server")).json()) as Record<string, string[]>;
    expect(body.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]);
    expect(body.token_endpoint_auth_signing_alg_values_supported).toContain("ES256");
    expect(body.token_endpoint_auth_signing_alg_values_supported).not.toContain("HS256");
    expect(body.introspection_endpoint_auth_methods_supported).toContain("private_key_jwt");
    expect(body.revocation_endpoint_auth_methods_supported).toContain("private_key_jwt");
  });
});
