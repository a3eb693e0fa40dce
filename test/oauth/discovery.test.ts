import { describe, expect, it } from "vitest";
import { callAt } from "../helpers/versioned";
import { call } from "./helpers";

describe("GET /.well-known/oauth-authorization-server (RFC 8414)", () => {
  it("§2: the issuer is the request's origin and the endpoints hang off it; S256 only; iss supported (RFC 9207)", async () => {
    const res = await call("https://auth.example.test/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.issuer).toBe("https://auth.example.test");
    expect(body.token_endpoint).toBe("https://auth.example.test/oauth/token");
    expect(body.authorization_endpoint).toBe("https://auth.example.test/oauth/authorize");
    expect(body.revocation_endpoint).toBe("https://auth.example.test/oauth/revoke");
    expect(body.introspection_endpoint).toBe("https://auth.example.test/oauth/introspect");
    expect(body.code_challenge_methods_supported).toEqual(["S256"]);
    expect(body.authorization_response_iss_parameter_supported).toBe(true);
    expect(body.scopes_supported).toContain("read_repository");
    expect(body.response_types_supported).toEqual(["code"]);
  });

  it("below 15.0 the implicit grant is advertised", async () => {
    const body = (await (await callAt("14.10", "/.well-known/oauth-authorization-server")).json()) as { response_types_supported: string[] };
    expect(body.response_types_supported).toContain("token");
  });
});

describe("GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0 §3)", () => {
  it("§3: names the issuer, GitLab's userinfo and JWKS paths, RS256, public subjects and the claims; it agrees with the RFC 8414 document", async () => {
    const oidc = (await (await call("https://auth.example.test/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    const oauth = (await (await call("https://auth.example.test/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(oidc).toEqual(oauth);
    expect(oidc).toMatchObject({
      issuer: "https://auth.example.test",
      userinfo_endpoint: "https://auth.example.test/oauth/userinfo",
      jwks_uri: "https://auth.example.test/oauth/discovery/keys",
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    for (const scope of ["openid", "profile", "email"]) expect(oidc.scopes_supported).toContain(scope);
    for (const claim of ["sub", "auth_time", "nonce", "email", "groups_direct"]) expect(oidc.claims_supported).toContain(claim);
  });
});
