import { createServer, type Server } from "node:http";
import { auth, extractWWWAuthenticateParams, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, authorizeInBrowser, baseURL, browserAndCallback, createUser, rootToken } from "./idp-helpers";

/**
 * Agents end to end (DESIGN, Agents; docs/agents.md): the MCP TypeScript SDK's own OAuth client,
 * `auth()` from @modelcontextprotocol/sdk, against `npm start`: discovery from the 401 of
 * /api/v4 (RFC 9728 resource_metadata), authorization server metadata, dynamic registration,
 * PKCE, the RFC 8707 resource, then the protected resource and a refresh; headless Chromium signs
 * in and presses Authorize. The SDK uses a Client ID Metadata Document only at an https URL, which
 * `npm start` cannot serve, so that flow is driven here by plain HTTP requests with a document at
 * a loopback http URL (ALLOW_LOOPBACK_CLIENT_METADATA, on under `npm start`).
 */
const fixture = browserAndCallback();

/** An in-memory OAuthClientProvider, as an agent keeps its registration and tokens. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(private readonly redirect: string) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "MCP SDK e2e agent", redirect_uris: [this.redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const graphql = (token: string) =>
  fetch(`${baseURL}/api/graphql`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ query: "{ currentUser { username } }" }) });

describe("MCP TypeScript SDK auth() against npm start", () => {
  it("discovery from the 401, dynamic registration, PKCE and resource; the token works on /api/v4 only, and refreshes", async () => {
    const user = await createUser(await rootToken(), "mcp");
    const serverUrl = new URL(`${baseURL}/api/v4/user`);
    // The SDK's transport reads the 401's challenge the same way (RFC 9728 §5.1).
    const unauthorized = await fetch(serverUrl);
    expect(unauthorized.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(unauthorized);
    expect(resourceMetadataUrl?.href).toBe(`${baseURL}/.well-known/oauth-protected-resource/api/v4`);

    const provider = new MemoryProvider(fixture.redirectUri);
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe("REDIRECT");
    // Registered dynamically (RFC 7591) and sent to the authorization endpoint with PKCE and the resource.
    expect(provider.info?.client_id).toBeTruthy();
    expect(provider.info?.client_id).not.toMatch(/^https?:/);
    const url = provider.authorizationUrl!;
    expect(url.searchParams.get("resource")).toBe(`${baseURL}/api/v4`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");

    const { callback, consentText } = await authorizeInBrowser(fixture.browser, url, user.username, fixture.redirectUri);
    expect(consentText).toContain("[Unverified Dynamic Application] MCP SDK e2e agent");
    const code = callback.searchParams.get("code")!;
    expect(code).toBeTruthy();
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: code })).toBe("AUTHORIZED");

    const token = provider.saved!.access_token;
    const me = await api("/user", token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
    // Bound to /api/v4 (RFC 8707): the GraphQL API refuses it.
    expect((await graphql(token)).status).toBe(401);

    // With a refresh token stored, auth() refreshes (with the same resource).
    const firstRefresh = provider.saved!.refresh_token;
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe("AUTHORIZED");
    expect(provider.saved!.refresh_token).not.toBe(firstRefresh);
    expect((await api("/user", provider.saved!.access_token)).status).toBe(200);
    expect((await api("/user", token)).status).toBe(401);
  });
});

describe("Client ID Metadata Document at a loopback URL (npm start; the SDK itself requires https)", () => {
  let docServer: Server;
  let documentUrl: string;
  beforeAll(async () => {
    docServer = createServer((req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "max-age=300" });
      res.end(JSON.stringify({ client_id: documentUrl, client_name: "Loopback agent", redirect_uris: [fixture.redirectUri], token_endpoint_auth_method: "none", scope: "read_api read_user" }));
    });
    await new Promise<void>((r) => docServer.listen(0, "127.0.0.1", r));
    documentUrl = `http://127.0.0.1:${(docServer.address() as { port: number }).port}/agent/client.json`;
  });
  afterAll(() => new Promise((r) => docServer?.close(r)));

  it("the document URL is the client_id: consent names its host, the code is exchanged with PKCE and the resource, and the API answers", async () => {
    const metadata = (await (await fetch(`${baseURL}/.well-known/oauth-authorization-server`)).json()) as { client_id_metadata_document_supported: boolean };
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    const user = await createUser(await rootToken(), "cimd");
    const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString("base64url");
    const url = new URL(`${baseURL}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: documentUrl,
      redirect_uri: fixture.redirectUri,
      response_type: "code",
      scope: "read_user",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: `${baseURL}/api/v4`,
      state: "cimd",
    }))
      url.searchParams.set(k, v);
    const { callback, consentText } = await authorizeInBrowser(fixture.browser, url, user.username, fixture.redirectUri);
    expect(consentText).toContain("Loopback agent");
    expect(consentText).toContain(`published at ${new URL(documentUrl).host}`);
    const res = await fetch(`${baseURL}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: documentUrl, code: callback.searchParams.get("code")!, redirect_uri: fixture.redirectUri, code_verifier: verifier, resource: `${baseURL}/api/v4` }),
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; scope: string };
    expect(tokens.scope).toBe("read_user");
    expect((await api("/user", tokens.access_token)).status).toBe(200);
  });
});
