import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { forgetFetchedKeySets } from "../../src/oauth/client-keys";
import { makeApp, makeUser, setUser } from "./helpers";
import { keyPair } from "./key-client-helpers";

/**
 * The jwt-bearer grant (RFC 7523 §2.1) with an ID-JAG (MCP Enterprise-Managed Authorization) from
 * an identity provider the administrator trusts (TRUSTED_ID_JAG_ISSUERS).
 */
const GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const IDP = "https://idp.example";
const JWKS = "https://idp.example/jwks.json";
const ISSUER = "http://localhost";

let idpKey: Awaited<ReturnType<typeof keyPair>>;
const realFetch = globalThis.fetch;

beforeEach(async () => {
  idpKey = await keyPair();
  forgetFetchedKeySets();
  vi.spyOn(globalThis, "fetch").mockImplementation(async (req: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof req === "string" ? req : req instanceof URL ? req.href : req.url;
    if (url !== JWKS) return realFetch(req, init);
    return new Response(JSON.stringify({ keys: [idpKey.jwk] }), { headers: { "Content-Type": "application/json" } });
  });
});
afterEach(() => vi.restoreAllMocks());

const trusting = withVars(env, { TRUSTED_ID_JAG_ISSUERS: JSON.stringify([{ issuer: IDP, jwks_uri: JWKS }]) });

async function send(path: string, init: RequestInit = {}, bound = trusting) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${ISSUER}${path}`, init), bound, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function idJag(claims: Record<string, unknown>, typ = "oauth-id-jag+jwt", key = idpKey) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: IDP, aud: ISSUER, sub: "idp-user-1", iat: now, exp: now + 300, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ })
    .sign(key.privateKey);
}

async function grant(client: { uid: string }, secret: string, assertion: string, fields: Record<string, string> = {}, bound = trusting) {
  const res = await send(
    "/oauth/token",
    {
      method: "POST",
      body: new URLSearchParams({ grant_type: GRANT, assertion, ...fields }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.uid}:${secret}`)}` },
    },
    bound,
  );
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe("grant_type=jwt-bearer with an ID-JAG (RFC 7523 §2.1)", () => {
  it("§2.1: a trusted identity provider's ID-JAG for this client gives the user's token, no refresh token", async () => {
    const { app: client, secret } = await makeApp({ scopes: ["api", "read_user"] });
    const user = await makeUser();
    const { status, body } = await grant(client, secret, await idJag({ client_id: client.uid, email: user.email, scope: "read_user" }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: "bearer", scope: "read_user", issued_token_type: "urn:ietf:params:oauth:token-type:access_token" });
    expect(body.refresh_token).toBeUndefined();
    const me = await send("/api/v4/user", { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  });

  it("§3: typ, aud, client_id, exp and the issuer's signature are checked; a jti is used once", async () => {
    const { app: client, secret } = await makeApp({ scopes: ["api"] });
    const user = await makeUser();
    const base = { client_id: client.uid, email: user.email };
    const stranger = await keyPair(idpKey.kid);
    const refusals = [
      await idJag(base, "JWT"),
      await idJag({ ...base, aud: "https://other.example" }),
      await idJag({ ...base, client_id: "another-client" }),
      await idJag({ ...base, exp: Math.floor(Date.now() / 1000) - 120 }),
      await idJag({ ...base, exp: Math.floor(Date.now() / 1000) + 3600 }),
      await idJag({ ...base, iss: "https://untrusted.example" }),
      await idJag(base, "oauth-id-jag+jwt", stranger),
      await idJag({ ...base, email: "nobody@nowhere.example" }),
    ];
    for (const assertion of refusals) {
      const { status, body } = await grant(client, secret, assertion);
      expect([status, body.error]).toEqual([400, "invalid_grant"]);
    }
    const once = await idJag(base);
    expect((await grant(client, secret, once)).status).toBe(200);
    expect((await grant(client, secret, once)).body.error).toBe("invalid_grant");
  });

  it("scope stays within what the ID-JAG grants; a blocked user gets nothing", async () => {
    const { app: client, secret } = await makeApp({ scopes: ["api", "read_user"] });
    const user = await makeUser();
    const wider = await grant(client, secret, await idJag({ client_id: client.uid, email: user.email, scope: "read_user" }), { scope: "api" });
    expect(wider.body.error).toBe("invalid_scope");
    await setUser(user.id, { state: "blocked" });
    expect((await grant(client, secret, await idJag({ client_id: client.uid, email: user.email }))).body.error).toBe("invalid_grant");
  });

  it("without TRUSTED_ID_JAG_ISSUERS nothing is trusted, and discovery does not advertise the grant", async () => {
    const { app: client, secret } = await makeApp({ scopes: ["api"] });
    const user = await makeUser();
    const none = await grant(client, secret, await idJag({ client_id: client.uid, email: user.email }), {}, env);
    expect(none.body.error).toBe("invalid_grant");
    const plain = (await (await send("/.well-known/oauth-authorization-server", {}, env)).json()) as { grant_types_supported: string[] };
    expect(plain.grant_types_supported).not.toContain(GRANT);
    const trusted = (await (await send("/.well-known/oauth-authorization-server")).json()) as { grant_types_supported: string[] };
    expect(trusted.grant_types_supported).toContain(GRANT);
  });
});
