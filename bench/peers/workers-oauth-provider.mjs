// The peer of bench/peers.mjs: Cloudflare's @cloudflare/workers-oauth-provider as one Worker (its
// OAuthProvider shape), with a Bearer-protected API route and its token endpoint (refresh grant).
// /authorize approves at once for the fixed user "bench" (a consent page is not what is measured);
// /-/setup-client creates a public client (or, with ?auth=client_secret_post, a confidential one)
// through the library's own helper.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";

const apiHandler = {
  async fetch(_request, _env, ctx) {
    return Response.json({ id: ctx.props.userId, username: ctx.props.username });
  },
};

const defaultHandler = {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/authorize") {
      const authRequest = await env.OAUTH_PROVIDER.parseAuthRequest(request);
      const { redirectTo } = await env.OAUTH_PROVIDER.completeAuthorization({
        request: authRequest,
        userId: "bench",
        metadata: {},
        scope: authRequest.scope,
        props: { userId: 1, username: "bench" },
        revokeExistingGrants: false,
      });
      return Response.redirect(redirectTo, 302);
    }
    if (url.pathname === "/-/setup-client") {
      const client = await env.OAUTH_PROVIDER.createClient({
        redirectUris: ["http://127.0.0.1/callback"],
        clientName: "bench",
        // ?auth=client_secret_post: a confidential client whose secret goes in the form body.
        tokenEndpointAuthMethod: url.searchParams.get("auth") ?? "none",
      });
      return Response.json(client);
    }
    if (url.pathname === "/-/empty") return Response.json({ ok: true });
    return new Response("not found", { status: 404 });
  },
};

export default new OAuthProvider({
  apiRoute: "/api/",
  apiHandler,
  defaultHandler,
  authorizeEndpoint: "/authorize",
  tokenEndpoint: "/oauth/token",
  scopesSupported: ["read"],
  // bench/peers.mjs defines the origin at build time: the library checks the token audience.
  resourceMetadata: { resource: `${globalThis.PEER_ORIGIN}/api/`, authorization_servers: [globalThis.PEER_ORIGIN] },
});
