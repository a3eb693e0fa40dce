import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { findApplicationByUid } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { applications } from "../../src/db/schema/applications";
import { isPublicHost } from "../../src/domain/public-host";
import { cacheSeconds } from "../../src/oauth/client-metadata/fetch-document";
import { Browser, signedInUser } from "../helpers/browser";
import { authorizeUrl, call, getCode, pkce, tokenRequest, unique } from "./helpers";

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; DESIGN, Agents;
 * docs/agents.md). Outbound HTTP is the Worker's global fetch, replaced here by a stub that serves
 * the documents of each test (no binding is involved); every guard's refusal is checked, and
 * refusals by URL are checked to make no request at all.
 */
const REDIRECT = "https://agent.example/callback";

type Served = { status?: number; body?: string; headers?: Record<string, string> };
let served: Map<string, Served>;
let requests: { url: string; redirect: string | undefined }[];
const realFetch = globalThis.fetch;

beforeEach(() => {
  served = new Map();
  requests = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const doc = served.get(url);
    if (!doc) return realFetch(input, init);
    requests.push({ url, redirect: init?.redirect });
    return new Response(doc.body ?? "", { status: doc.status ?? 200, headers: { "Content-Type": "application/json", ...doc.headers } });
  });
});
afterEach(() => vi.restoreAllMocks());

function documentUrl(host = "agent.example"): string {
  return `https://${host}/oauth/${unique("client")}.json`;
}

function serve(url: string, extra: Record<string, unknown> = {}, response: Served = {}) {
  const document = { client_id: url, client_name: "Agent", redirect_uris: [REDIRECT], scope: "read_api read_user", ...extra };
  served.set(url, { body: JSON.stringify(document), ...response });
}

async function authorize(browser: Browser, clientId: string, extra: Record<string, string> = {}) {
  const { challenge } = await pkce();
  return browser.fetch(authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", ...extra }));
}

/** The refusal page of an authorize request: 400, shown (never redirected), with the reason. */
async function expectRefused(res: Response, reason: RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers.get("location")).toBeNull();
  const html = await res.text();
  expect(html).toContain("invalid_client");
  expect(html).toMatch(reason);
}

describe("Client ID Metadata Documents", () => {
  it("metadata documents advertise client_id_metadata_document_supported (both, RFC 8414 and OIDC Discovery)", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const body = (await (await call(path)).json()) as Record<string, unknown>;
      expect(body.client_id_metadata_document_supported).toBe(true);
    }
  });

  it("an https client_id is fetched, shown unverified with its host on consent, exchanged with PKCE, and listed in authorized applications", async () => {
    const url = documentUrl();
    serve(url, { client_name: "Helpful Agent" });
    const { browser } = await signedInUser();
    const consent = await authorize(browser, url);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain("[Unverified Dynamic Application] Helpful Agent");
    expect(html).toMatch(/published at <strong><code><bdi dir="ltr">agent\.example<\/bdi><\/code><\/strong>/);
    expect(requests).toEqual([{ url, redirect: "manual" }]);

    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: url, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" });
    const token = await tokenRequest({ grant_type: "authorization_code", client_id: url, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope).toBe("read_api read_user");
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);

    const list = await (await browser.get("/profile/applications")).text();
    expect(list).toContain("Helpful Agent");
    expect(list).toContain("metadata document at <code>agent.example</code>");
  });

  it("validated like a registration: a public client without PKCE is refused (invalid_request at the redirect URI)", async () => {
    const url = documentUrl();
    serve(url);
    const { browser } = await signedInUser();
    const res = await browser.fetch(authorizeUrl({ client_id: url, redirect_uri: REDIRECT, response_type: "code" }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("redirect_uri must be one of the document's redirect_uris, exactly (shown, never redirected)", async () => {
    const url = documentUrl();
    serve(url);
    const { browser } = await signedInUser();
    const res = await authorize(browser, url, { redirect_uri: "https://agent.example/callback/other" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("invalid_redirect_uri");
  });

  it("an approved client is cached for Cache-Control's max-age: requests within it fetch nothing; after it the document is fetched again and its changes apply", async () => {
    const url = documentUrl();
    serve(url, {}, { headers: { "Cache-Control": "public, max-age=600" } });
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    // The consent page and the approval each fetch (nothing is stored before the approval).
    await getCode(browser, { client_id: url, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" });
    expect(requests).toHaveLength(2);
    expect((await authorize(browser, url)).status).toBe(200);
    expect((await authorize(browser, url)).status).toBe(200);
    expect(requests).toHaveLength(2);
    const row = (await findApplicationByUid(getDb(env.DB), url))!;
    expect(row.metadataExpiresAt! - row.createdAt).toBeGreaterThan(590_000);
    expect(row.metadataExpiresAt! - row.createdAt).toBeLessThan(610_000);

    await getDb(env.DB).update(applications).set({ metadataExpiresAt: Date.now() - 1 }).where(eq(applications.id, row.id));
    serve(url, { client_name: "Renamed Agent", redirect_uris: ["https://agent.example/new-callback"] });
    const old = await authorize(browser, url);
    expect(old.status).toBe(400);
    expect(requests).toHaveLength(3);
    const renamed = await authorize(browser, url, { redirect_uri: "https://agent.example/new-callback" });
    expect(await renamed.text()).toContain("Renamed Agent");
  });

  it("cache bounds: max-age is honoured between 60 s and 24 h; no-store keeps the minimum; no header means one hour", () => {
    expect(cacheSeconds("max-age=10")).toBe(60);
    expect(cacheSeconds("public, max-age=300")).toBe(300);
    expect(cacheSeconds("max-age=9999999")).toBe(86400);
    expect(cacheSeconds("no-store")).toBe(60);
    expect(cacheSeconds(null)).toBe(3600);
  });
});

describe("Client ID Metadata Documents: refusals", () => {
  const refusedUrls: [string, RegExp][] = [
    ["http://agent.example/client.json", /must use https/],
    ["https://127.0.0.1/client.json", /not a public address/],
    ["https://10.1.2.3/client.json", /not a public address/],
    ["https://169.254.169.254/latest/meta-data", /not a public address/],
    ["https://[::1]/client.json", /not a public address/],
    ["https://[::ffff:a00:1]/client.json", /not a public address/],
    ["https://[fd00::1]/client.json", /not a public address/],
    ["https://localhost/client.json", /not a public address/],
    ["https://metadata.internal/client.json", /not a public address/],
    ["https://intranet/client.json", /not a public address/],
    ["https://[::7f00:1]/x", /not a public address/],
    ["https://[64:ff9b:1::7f00:1]/x", /not a public address/],
    ["https://[::ffff:0:7f00:1]/x", /not a public address/],
    ["https://[100::1]/x", /not a public address/],
    ["https://localhost../x", /not a public address/],
    ["https://foo.localhost../x", /not a public address/],
    ["https://foo.local../x", /not a public address/],
    ["https://localhost.localdomain/x", /not a public address/],
    ["https://agent.example/", /must contain a path/],
    ["https://user:pw@agent.example/client.json", /credentials/],
    ["https://agent.example/a/../client.json", /normal form/],
    ["https://agent.example/client.json#frag", /fragment/],
  ];
  for (const [url, reason] of refusedUrls) {
    it(`the URL ${url} is refused without any request (${reason.source})`, async () => {
      serve(url);
      const { browser } = await signedInUser();
      await expectRefused(await authorize(browser, url), reason);
      expect(requests).toHaveLength(0);
      expect(await findApplicationByUid(getDb(env.DB), url)).toBeNull();
    });
  }

  const refusedAnswers: [string, (url: string) => void, RegExp][] = [
    ["a redirect (to a private address) is not followed", (u) => served.set(u, { status: 302, headers: { Location: "http://169.254.169.254/" } }), /redirect/],
    ["an answer other than 200", (u) => served.set(u, { status: 404, body: "{}" }), /answered 404/],
    ["a content type other than JSON", (u) => serve(u, {}, { headers: { "Content-Type": "text/html" } }), /application\/json/],
    ["a document over 5 KB", (u) => serve(u, { client_name: "x".repeat(6000) }), /larger than 5120 bytes/],
    ["a body that is not JSON", (u) => served.set(u, { body: "{not json" }), /not valid JSON/],
    ["a JSON array", (u) => served.set(u, { body: "[]" }), /not a JSON object/],
    ["a client_id other than the URL", (u) => serve(u, { client_id: "https://other.example/client.json" }), /client_id is not the URL/],
    ["a client secret in the document", (u) => serve(u, { client_secret: "s3cret" }), /client secret/],
    ["a client secret method (token_endpoint_auth_method)", (u) => serve(u, { token_endpoint_auth_method: "client_secret_basic" }), /no client secret is issued/],
    ["no redirect_uris", (u) => serve(u, { redirect_uris: [] }), /redirect URI is required/],
    ["a scope the registration rules forbid (sudo)", (u) => serve(u, { scope: "api sudo" }), /sudo/],
  ];
  for (const [what, setUp, reason] of refusedAnswers) {
    it(`refused: ${what}`, async () => {
      const url = documentUrl();
      setUp(url);
      const { browser } = await signedInUser();
      await expectRefused(await authorize(browser, url), reason);
      expect(requests).toHaveLength(1);
      expect(requests[0].redirect).toBe("manual");
      expect(await findApplicationByUid(getDb(env.DB), url)).toBeNull();
    });
  }

  it("refused: no answer within the time limit", async () => {
    const url = documentUrl();
    vi.mocked(globalThis.fetch).mockImplementationOnce(async () => {
      throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    });
    const { browser } = await signedInUser();
    await expectRefused(await authorize(browser, url), /no answer within 5 seconds/);
  });

  it("host rules: public names and addresses pass, private ones do not", () => {
    expect(isPublicHost("agent.example")).toBe(true);
    expect(isPublicHost("8.8.8.8")).toBe(true);
    expect(isPublicHost("[2606:4700::1111]")).toBe(true);
    for (const host of ["192.168.1.1", "172.16.0.1", "100.64.0.1", "0.0.0.0", "[::]", "[fe80::1]", "[64:ff9b::a00:1]", "printer.local", "x.localhost"]) {
      expect(isPublicHost(host), host).toBe(false);
    }
  });
});

describe("Client ID Metadata Documents under ALLOW_LOOPBACK_CLIENT_METADATA (development)", () => {
  function browserWith(vars: Record<string, string>) {
    const bound = withVars(env, vars);
    return new Browser(async (path, init) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`http://localhost${path}`, init), bound, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    });
  }

  it("an http URL on 127.0.0.1 stands in for https when the variable is true, and is refused when it is false", async () => {
    const url = `http://127.0.0.1:9/${unique("client")}.json`;
    serve(url);
    const on = browserWith({ ALLOW_LOOPBACK_CLIENT_METADATA: "true" });
    await signedInUser(on);
    expect((await authorize(on, url)).status).toBe(200);
    expect(requests).toHaveLength(1);

    const url2 = `http://127.0.0.1:9/${unique("client")}.json`;
    serve(url2);
    const off = browserWith({ ALLOW_LOOPBACK_CLIENT_METADATA: "false" });
    await signedInUser(off);
    await expectRefused(await authorize(off, url2), /must use https/);
    expect(requests).toHaveLength(1);
  });
});
