import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, authorizeUrl, makeApp, pkce } from "../oauth/helpers";
import { authorizeDevice, errorOf } from "./device-helpers";
import { oidcApp } from "./helpers";

async function authorizeWith(clientId: string, redirectUri: string, extra: Record<string, string>) {
  const { browser } = await signedInUser();
  const { challenge } = await pkce();
  return browser.get(
    authorizeUrl({ client_id: clientId, response_type: "code", redirect_uri: redirectUri, scope: "openid", state: "st", code_challenge: challenge, code_challenge_method: "S256", ...extra }),
  );
}

describe("OIDC Core §6 with RFC 9101: request objects are verified (test/oauth/jar.test.ts), a request_uri elsewhere is refused rather than ignored", () => {
  it("§6.1: a request= that is not a verifiable request object is invalid_request_object, shown, never redirected", async () => {
    const { app } = await oidcApp();
    const res = await authorizeWith(app.uid, REDIRECT, { request: "eyJhbGciOiJub25lIn0.eyJzY29wZSI6Im9wZW5pZCJ9." });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("§6.2: request_uri= answers request_uri_not_supported at the redirect URI", async () => {
    const { app } = await oidcApp();
    const res = await authorizeWith(app.uid, REDIRECT, { request_uri: "https://client.example/request.jwt" });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("request_uri_not_supported");
  });

  it("DESIGN convention 5: with an unregistered redirect URI the error is shown, never redirected, request= or not", async () => {
    const { app } = await oidcApp();
    const res = await authorizeWith(app.uid, "https://evil.example/cb", { request: "x" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("RFC 8628 §3.1 with RFC 6749 §2.3.1: the device authorization endpoint authenticates clients as the token endpoint does", () => {
  const basic = (id: string, secret: string) => `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;
  const post = (headers: Record<string, string>) => authorizeDevice({}, headers);

  it("a confidential client that authenticates with HTTP Basic alone (no client_id in the body) gets a device code", async () => {
    const { app, secret } = await makeApp({ confidential: true });
    const res = await post({ Authorization: basic(app.uid, secret) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { device_code?: string }).device_code).toBeTruthy();
  });

  it("HTTP Basic with a wrong secret is 401 invalid_client; no client at all is invalid_request (client_id)", async () => {
    const { app } = await makeApp({ confidential: true });
    const wrong = await post({ Authorization: basic(app.uid, "gloas-wrong") });
    expect(wrong.status).toBe(401);
    expect(await errorOf(wrong)).toBe("invalid_client");
    const none = await post({});
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error_description: string }).error_description).toContain("client_id");
  });
});

