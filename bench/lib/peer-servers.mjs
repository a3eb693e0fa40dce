// The peers the bench scripts measure beside this service, started on 127.0.0.1:
//   - Cloudflare's @cloudflare/workers-oauth-provider (bench/peers/workers-oauth-provider.mjs),
//     bundled and served on workerd through Miniflare as this service is (bench/lib/worker.mjs);
//   - panva's oidc-provider in Node, in memory (bench/peers/oidc-provider.mjs).
// Shared by bench/peers.mjs and bench/requests.mjs.
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { buildSync } from "esbuild";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { form, json } from "./seed.mjs";
import { ROOT } from "./worker.mjs";
import { freePort } from "./free-port.mjs";

export { startOidcProvider } from "../peers/oidc-provider.mjs";

export { freePort };

/**
 * workers-oauth-provider on workerd: its audience is the origin, so the port is chosen first.
 * `client` is a public client (PKCE only), `confidentialClient` one registered with
 * client_secret_post; `grant(client)` runs one authorization and answers the token response.
 */
export async function startWorkersOAuthProvider() {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const script = buildSync({
    entryPoints: [path.join(ROOT, "bench/peers/workers-oauth-provider.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    define: { "globalThis.PEER_ORIGIN": JSON.stringify(origin) },
    write: false,
  }).outputFiles[0].text;
  const mf = new Miniflare(
    convertV4MiniflareOptions({ host: "127.0.0.1", port, modules: true, script, compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"], kvNamespaces: ["OAUTH_KV"] }),
  );
  await mf.ready;
  const client = await json(await fetch(`${origin}/-/setup-client`));
  const confidentialClient = await json(await fetch(`${origin}/-/setup-client?auth=client_secret_post`));
  if (!confidentialClient.clientSecret) throw new Error("workers-oauth-provider: the confidential client has no secret");
  async function grant(of = client) {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const q = new URLSearchParams({ client_id: of.clientId, redirect_uri: "http://127.0.0.1/callback", response_type: "code", state: "b", code_challenge: challenge, code_challenge_method: "S256", scope: "read" });
    const res = await fetch(`${origin}/authorize?${q}`, { redirect: "manual" });
    const code = new URL(res.headers.get("location")).searchParams.get("code");
    const secret = of.clientSecret ? { client_secret: of.clientSecret } : {};
    return json(await fetch(`${origin}/oauth/token`, form({ grant_type: "authorization_code", client_id: of.clientId, ...secret, code, redirect_uri: "http://127.0.0.1/callback", code_verifier: verifier })));
  }
  return { url: origin, client, confidentialClient, grant, stop: () => mf.dispose() };
}
