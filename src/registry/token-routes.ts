import { Hono, type Context } from "hono";
import { admitRequest, type Caller, type Door } from "../credentials/front-door";
import { getConfig } from "../config";
import type { AppEnv } from "../env";
import { issuerOf } from "../oauth/issuer";
import { parseScopes } from "../domain/scopes";
import { RegistryError, renderRegistryError } from "./errors";
import { grantScope, parseScope, type RegistryCaller } from "./grants";
import { REGISTRY_AUDIENCE, signRegistryToken, type AccessEntry } from "../credentials/registry-token";

/**
 * GitLab's token service for the container registry (Docker token protocol): HTTP Basic with a
 * personal access token or a deploy token, or nothing (public pulls). OAuth access tokens are
 * refused (spec: tokens do not authenticate users to the container registry).
 */
const tokenRoutes = new Hono<AppEnv>();
tokenRoutes.onError(renderRegistryError);

const MAX_SCOPES = 16;

/**
 * The token service's door: HTTP Basic with a personal access token or a deploy token, or nothing
 * (public pulls). A failed login, any other Authorization included, counts towards the per-address
 * throttle in failed_auth (DESIGN, Hardening; a banned address gets 429 TOOMANYREQUESTS), as on git.
 */
const TOKEN_SERVICE_DOOR = {
  sources: ["basic"],
  accepts: ["personal_access_token", "deploy_token"],
  anonymous: true,
  authorizationIsAttempt: true,
  failures: { bucket: "failed_auth", method: "registry_basic" },
  // GitLab asks a dpop_enabled user's PAT for a DPoP proof on API requests only (docs/oauth.md).
  patKeyProofExempt: true,
} as const satisfies Door;

async function callerOf(c: Context<AppEnv>): Promise<RegistryCaller> {
  const caller: Caller = await admitRequest(c, TOKEN_SERVICE_DOOR);
  if (caller.kind === "user") return { kind: "user", user: caller.principal.user, scopes: caller.principal.scopes };
  // The door accepts no OAuth token, so no application caller comes through it.
  if (caller.kind === "application") throw new Error("unreachable: the token service's door accepts no application");
  return caller;
}

tokenRoutes.get("/auth", async (c) => {
  // GitLab answers 404 unless `service` names a service it issues tokens for (JwtController).
  const service = c.req.query("service");
  if (service !== REGISTRY_AUDIENCE) {
    throw new RegistryError("NAME_UNKNOWN", service === undefined ? `the service parameter is required ("${REGISTRY_AUDIENCE}")` : `unknown service "${service}"`, { status: 404 });
  }
  const caller = await callerOf(c);
  // Docker's token protocol: `scope` repeats, and one value may hold several, space-separated.
  const requested = (c.req.queries("scope") ?? []).flatMap(parseScopes);
  if (requested.length > MAX_SCOPES) throw new RegistryError("DENIED", `at most ${MAX_SCOPES} scopes per request`, { status: 400 });
  const access: AccessEntry[] = [];
  for (const raw of requested) {
    const scope = parseScope(raw);
    const granted = scope && (await grantScope(c.env, caller, scope));
    if (granted) access.push(granted);
  }
  const config = getConfig(c.env);
  const now = Math.floor(Date.now() / 1000);
  const ttl = config.registry.tokenTtlSeconds;
  const subject = caller.kind === "user" ? caller.user.username : caller.kind === "deploy_token" ? caller.token.username : "";
  const token = await signRegistryToken(c.env, { iss: issuerOf(c), aud: REGISTRY_AUDIENCE, sub: subject, iat: now, nbf: now, exp: now + ttl, access });
  c.header("Cache-Control", "no-store");
  // offline_token=true asks for a refresh_token (Docker token protocol), which a server may only
  // return when asked and never has to: we issue none (docs/registries.md, "offline_token").
  return c.json({ token, access_token: token, expires_in: ttl, issued_at: new Date(now * 1000).toISOString() });
});

export default tokenRoutes;
