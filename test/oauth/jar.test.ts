import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, call, makeApp, pkce } from "./helpers";

/**
 * RFC 9101 signed authorization requests (JAR): `request` is a JWT signed with a key the client
 * registered; its parameters alone are used (§6.3); at /oauth/authorize and at POST /oauth/par.
 * A signature by another key, `alg: none`, a wrong iss or aud, or a client without keys is
 * invalid_request_object, shown and never redirected (the redirect_uri cannot be trusted).
 */
const ISSUER = "http://localhost";

async function clientKeys() {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  return { privateKey, jwks: JSON.stringify({ keys: [jwk] }) };
}

async function requestObject(privateKey: CryptoKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "k1", typ: "oauth-authz-req+jwt", ...header }).setIssuedAt().setExpirationTime("5m").sign(privateKey);
}

const hiddenFields = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));

async function setup() {
  const keys = await clientKeys();
  const { app } = await makeApp({ confidential: false, jwks: keys.jwks });
  const { challenge } = await pkce();
  const claims = { iss: app.uid, aud: ISSUER, client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, scope: "api", state: "signed", code_challenge: challenge, code_challenge_method: "S256" };
  const { browser } = await signedInUser();
  const open = (request: string, outer: Record<string, string> = {}) => browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request, ...outer })}`);
  return { keys, app, claims, open };
}

async function expectRefused(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get("location")).toBeNull();
  expect(await res.text()).toContain("invalid_request_object");
}

describe("RFC 9101 signed request objects", () => {
  it("§6.3: a request object signed with the client's registered key is served with its own parameters, not the outer ones", async () => {
    const { keys, claims, open } = await setup();
    const res = await open(await requestObject(keys.privateKey, claims), { scope: "read_user", state: "outer" });
    expect(res.status).toBe(200);
    expect(hiddenFields(await res.text())).toMatchObject({ state: "signed", scope: "api" });
  });

  it("§6.2: a request object signed by another key is invalid_request_object", async () => {
    const { claims, open } = await setup();
    const other = await clientKeys();
    await expectRefused(await open(await requestObject(other.privateKey, claims)));
  });

  it("§6.2: an unsigned request object (alg none) is invalid_request_object", async () => {
    const { claims, open } = await setup();
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    await expectRefused(await open(`${b64({ alg: "none" })}.${b64(claims)}.`));
  });

  it("§6.1: a request object whose iss is not the client, or whose aud is not this issuer, is invalid_request_object", async () => {
    const { keys, claims, open } = await setup();
    await expectRefused(await open(await requestObject(keys.privateKey, { ...claims, iss: "someone-else" })));
    await expectRefused(await open(await requestObject(keys.privateKey, { ...claims, aud: "https://other.example" })));
  });

  it("§6.3: a request object's client_id must be the request's", async () => {
    const { keys, claims, open } = await setup();
    await expectRefused(await open(await requestObject(keys.privateKey, { ...claims, client_id: "another" })));
  });

  it("§10.8: a typ other than oauth-authz-req+jwt is invalid_request_object", async () => {
    const { keys, claims, open } = await setup();
    await expectRefused(await open(await requestObject(keys.privateKey, claims, { typ: "JWT" })));
  });

  it("§6.2: a client that registered no keys cannot send a request object", async () => {
    const keys = await clientKeys();
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const request = await requestObject(keys.privateKey, { iss: app.uid, aud: ISSUER, response_type: "code", redirect_uri: REDIRECT });
    await expectRefused(await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request })}`));
  });

  it("RFC 9126 §3: a request object pushed to /oauth/par is verified there, and its request_uri serves its parameters", async () => {
    const { keys, app, claims } = await setup();
    const push = (request: string) => call("/oauth/par", { method: "POST", body: new URLSearchParams({ client_id: app.uid, request }) });
    const other = await clientKeys();
    const bad = await push(await requestObject(other.privateKey, claims));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_request_object");
    const res = await push(await requestObject(keys.privateKey, claims));
    expect(res.status).toBe(201);
    const { request_uri } = (await res.json()) as { request_uri: string };
    const { browser } = await signedInUser();
    const page = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri })}`);
    expect(hiddenFields(await page.text())).toMatchObject({ state: "signed" });
  });

  it("discovery advertises request objects (request_parameter_supported) and their algorithms, and no fetched request_uri", async () => {
    const body = (await (await call("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(body.request_parameter_supported).toBe(true);
    expect(body.request_object_signing_alg_values_supported).toEqual(["RS256", "PS256", "ES256", "ES384"]);
    expect(body.request_uri_parameter_supported).toBe(false);
  });
});
