// The Node peer of bench/peers.mjs: panva's oidc-provider, in memory (its default adapter), on
// 127.0.0.1. Tokens are minted through the provider's own models (a Grant, an AccessToken and a
// RefreshToken), which is what its code grant stores; interactions are not what is measured.
import Provider from "oidc-provider";

export async function startOidcProvider(port) {
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "bench",
        client_secret: "bench-secret-bench-secret-bench-secret",
        redirect_uris: ["http://127.0.0.1/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
    ],
    features: { introspection: { enabled: true }, devInteractions: { enabled: false } },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, preferred_username: "bench", name: "Bench" }) }),
    // As this service: every refresh rotates the refresh token.
    rotateRefreshToken: true,
    issueRefreshToken: async () => true,
    scopes: ["openid", "offline_access"],
    ttl: { Grant: 14 * 86400, AccessToken: 3600, RefreshToken: 14 * 86400, IdToken: 3600, Session: 86400, Interaction: 600 },
  });
  provider.on("server_error", (_ctx, err) => console.error("oidc-provider", err));
  const server = provider.listen(port, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));

  const client = await provider.Client.find("bench");
  async function tokens() {
    const grant = new provider.Grant({ accountId: "1", clientId: "bench" });
    grant.addOIDCScope("openid offline_access");
    const grantId = await grant.save();
    const access = await new provider.AccessToken({ accountId: "1", client, grantId, scope: "openid", gty: "authorization_code" }).save();
    const refresh = await new provider.RefreshToken({ accountId: "1", client, grantId, scope: "openid offline_access", gty: "authorization_code", iat: Math.floor(Date.now() / 1000) }).save();
    return { access_token: access, refresh_token: refresh };
  }
  return {
    url: issuer,
    tokens,
    clientAuth: `Basic ${Buffer.from("bench:bench-secret-bench-secret-bench-secret").toString("base64")}`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
