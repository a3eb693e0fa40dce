import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/crypto/hash";
import { getDb } from "../../src/db/client";
import { savePushedRequest } from "../../src/db/pushed-requests";
import { signedInUser } from "../helpers/browser";
import { dpopKey, proof, serverNonce } from "../helpers/dpop";
import { REDIRECT, call, makeApp, pkce, tokenRequest } from "./helpers";

/**
 * RFC 9126 pushed authorization requests: POST /oauth/par authenticates the client as the token
 * endpoint does, validates the request as /oauth/authorize would (errors as JSON), stores it and
 * answers a single-use request_uri URN with a short expires_in; /oauth/authorize takes it for the
 * same client_id only; a client may be required to push (§6); discovery names the endpoint (§5).
 */
function push(fields: Record<string, string>, opts: { basic?: [string, string]; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded", ...opts.headers };
  if (opts.basic) headers.Authorization = `Basic ${btoa(`${opts.basic[0]}:${opts.basic[1]}`)}`;
  return call("/oauth/par", { method: "POST", body: new URLSearchParams(fields), headers });
}

async function pushed(res: Response): Promise<string> {
  expect(res.status).toBe(201);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { request_uri: string; expires_in: number };
  expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
  expect(body.expires_in).toBe(60);
  return body.request_uri;
}

const hiddenFields = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));

async function errorOf(res: Response) {
  return ((await res.json()) as { error: string }).error;
}

describe("RFC 9126 pushed authorization requests", () => {
  it("§2, §4: a public client pushes its request; /oauth/authorize with client_id and the request_uri shows it, and the code exchanges", async () => {
    const { app } = await makeApp({ confidential: false });
    const { verifier, challenge } = await pkce();
    const uri = await pushed(await push({ client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, scope: "api", state: "pushed-state", code_challenge: challenge, code_challenge_method: "S256" }));
    const { browser } = await signedInUser();
    const page = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri: uri })}`);
    expect(page.status).toBe(200);
    const hidden = hiddenFields(await page.text());
    expect(hidden).toMatchObject({ client_id: app.uid, state: "pushed-state", code_challenge: challenge, scope: "api" });
    const decided = await browser.post("/oauth/authorize", { ...hidden, decision: "approve" });
    const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: app.uid, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status).toBe(200);
  });

  it("§4: a request_uri is used once: the second authorization request with it is refused", async () => {
    const { app } = await makeApp({ confidential: false });
    const { challenge } = await pkce();
    const uri = await pushed(await push({ client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" }));
    const { browser } = await signedInUser();
    const url = `/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri: uri })}`;
    expect((await browser.fetch(url)).status).toBe(200);
    const again = await browser.fetch(url);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("invalid_request_uri");
  });

  it("§4: a request_uri pushed by another client, or expired, is refused and never redirected", async () => {
    const { app } = await makeApp({ confidential: false });
    const { app: other } = await makeApp({ confidential: false });
    const { challenge } = await pkce();
    const uri = await pushed(await push({ client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" }));
    const { browser } = await signedInUser();
    const foreign = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: other.uid, request_uri: uri })}`);
    expect(foreign.status).toBe(400);
    const id = "A".repeat(43);
    await savePushedRequest(getDb(env.DB), { idHash: await sha256Hex(id), applicationId: app.id, query: `client_id=${app.uid}&response_type=code`, expiresAt: Date.now() - 1 });
    const expired = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri: `urn:ietf:params:oauth:request_uri:${id}` })}`);
    expect(expired.status).toBe(400);
    expect(expired.headers.get("location")).toBeNull();
  });

  it("§2.1: a confidential client authenticates as at the token endpoint: without or with a wrong secret it is invalid_client", async () => {
    const { app, secret } = await makeApp({ confidential: true });
    const fields = { response_type: "code", redirect_uri: REDIRECT };
    expect(await errorOf(await push({ ...fields, client_id: app.uid }))).toBe("invalid_client");
    expect(await errorOf(await push(fields, { basic: [app.uid, "gloas-wrong"] }))).toBe("invalid_client");
    await pushed(await push(fields, { basic: [app.uid, secret] }));
  });

  it("§2.1: the pushed request is validated at once: an unregistered redirect_uri is invalid_redirect_uri, a pushed request_uri invalid_request", async () => {
    const { app } = await makeApp({ confidential: false });
    const { challenge } = await pkce();
    const base = { client_id: app.uid, response_type: "code", code_challenge: challenge, code_challenge_method: "S256" };
    const bad = await push({ ...base, redirect_uri: "https://evil.example/cb" });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toBe("invalid_redirect_uri");
    expect(await errorOf(await push({ ...base, redirect_uri: REDIRECT, request_uri: "urn:ietf:params:oauth:request_uri:x" }))).toBe("invalid_request");
  });

  it("§6: a client that requires pushed requests is refused a plain authorization request, and served a pushed one", async () => {
    const { app } = await makeApp({ confidential: false, requirePushedAuthorizationRequests: true });
    const { challenge } = await pkce();
    const fields = { client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s" };
    const { browser } = await signedInUser();
    const plain = await browser.fetch(`/oauth/authorize?${new URLSearchParams(fields)}`);
    expect(new URL(plain.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    const uri = await pushed(await push(fields));
    expect((await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri: uri })}`)).status).toBe(200);
  });

  it("RFC 9101 §5.2: a request_uri that is not a pushed request's URN stays request_uri_not_supported", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const res = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", request_uri: "https://client.example/request.jwt" })}`);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("request_uri_not_supported");
  });

  it("RFC 9449 §10.1: a DPoP proof at PAR binds the code to its key (dpop_jkt)", async () => {
    const { app } = await makeApp({ confidential: false });
    const key = await dpopKey();
    const nonce = await serverNonce(key);
    const { challenge } = await pkce();
    const uri = await pushed(
      await push({ client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" }, { headers: { DPoP: await proof(key, "/oauth/par", { nonce }) } }),
    );
    const { browser } = await signedInUser();
    const page = await browser.fetch(`/oauth/authorize?${new URLSearchParams({ client_id: app.uid, request_uri: uri })}`);
    expect(hiddenFields(await page.text()).dpop_jkt).toBe(key.jkt);
  });

  it("§5: discovery names the pushed authorization request endpoint", async () => {
    const body = (await (await call("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    expect(body.pushed_authorization_request_endpoint).toBe("http://localhost/oauth/par");
    expect(body.require_pushed_authorization_requests).toBe(false);
  });
});
