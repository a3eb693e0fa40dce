import { describe, expect, it } from "vitest";
import { call, pkceTokens } from "../oauth/helpers";

describe("Protected resource metadata (RFC 9728) for /api/v4", () => {
  it("§3.2: /.well-known/oauth-protected-resource names the resource, this server as its authorization server, and the bearer methods", async () => {
    const res = await call("https://api.example.test/.well-known/oauth-protected-resource");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      resource: "https://api.example.test",
      authorization_servers: ["https://api.example.test"],
      bearer_methods_supported: ["header", "query"],
    });
    expect(body.scopes_supported).toContain("api");
    expect(body.scopes_supported).not.toContain("openid");
  });

  it("§3.1: the metadata of the resource identifier <issuer>/api/v4 is at the path-suffixed well-known URL and names that resource", async () => {
    const body = (await (await call("https://api.example.test/.well-known/oauth-protected-resource/api/v4")).json()) as { resource: string };
    expect(body.resource).toBe("https://api.example.test/api/v4");
  });

  it("§5.1: a 401 from /api/v4 carries WWW-Authenticate: Bearer with resource_metadata, without a token and with an expired or revoked one", async () => {
    const expected = 'resource_metadata="http://localhost/.well-known/oauth-protected-resource/api/v4"'; // the document of the prefix called (DESIGN)
    const anonymous = await call("/api/v4/user");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(anonymous.headers.get("www-authenticate")).toContain(expected);
    expect(await anonymous.json()).toEqual({ message: "401 Unauthorized" });

    const { app, tokens } = await pkceTokens();
    const revoke = await call("/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: tokens.access_token, client_id: app.uid }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(revoke.status).toBe(200);
    const revoked = await call("/api/v4/user", { token: tokens.access_token });
    expect(revoked.status).toBe(401);
    const header = revoked.headers.get("www-authenticate")!;
    expect(header).toContain('error="invalid_token"');
    expect(header).toContain(expected);
  });
});
