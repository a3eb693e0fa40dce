import { Hono, type Context } from "hono";
import { isDeployTokenSecret, resolveDeployToken } from "../credentials/deploy-token";
import { countAddressFailure } from "../auth/lockout";
import { AuthError } from "../credentials/errors";
import { resolveToken } from "../credentials/resolve";
import { getConfig } from "../config";
import { PAT_PREFIX } from "../db/personal-access-tokens";
import type { AppEnv } from "../env";
import { parseBasic } from "../git/credentials";
import { issuerOf } from "../oauth/issuer";
import { clientIp } from "../web/page";
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

const DENIED_MESSAGE =
  "HTTP Basic: Access denied. The container registry accepts a personal access token (scopes read_registry, write_registry or api) or a deploy token as the password; OAuth access tokens and passwords are not accepted.";
const MAX_SCOPES = 16;

async function callerOf(c: Context<AppEnv>): Promise<RegistryCaller> {
  const header = c.req.header("authorization");
  if (!header) return { kind: "anonymous" };
  const creds = parseBasic(header);
  // Failed Basic authentication counts towards the per-address throttle (DESIGN, Hardening; a
  // banned address gets 429 TOOMANYREQUESTS), as on git.
  const refuse = async () => {
    await countAddressFailure(c.env, { ip: clientIp(c) }, "registry_basic");
    return new RegistryError("UNAUTHORIZED", DENIED_MESSAGE);
  };
  if (!creds || !creds.password) throw await refuse();
  try {
    if (isDeployTokenSecret(creds.password)) return { kind: "deploy_token", token: await resolveDeployToken(c.env, creds.username, creds.password) };
    if (creds.password.startsWith(PAT_PREFIX)) {
      const principal = await resolveToken(c.env, creds.password, (p) => c.executionCtx.waitUntil(p));
      return { kind: "user", user: principal.user, scopes: principal.scopes };
    }
  } catch (err) {
    if (!(err instanceof AuthError)) throw err;
  }
  throw await refuse();
}

tokenRoutes.get("/auth", async (c) => {
  const service = c.req.query("service");
  if (service !== undefined && service !== REGISTRY_AUDIENCE) throw new RegistryError("UNSUPPORTED", `unknown service "${service}"`, { status: 404 });
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
  const token = await signRegistryToken(config.secretKeyBase, { iss: issuerOf(c), aud: REGISTRY_AUDIENCE, sub: subject, iat: now, nbf: now, exp: now + ttl, access });
  c.header("Cache-Control", "no-store");
  return c.json({ token, access_token: token, expires_in: ttl, issued_at: new Date(now * 1000).toISOString() });
});

export default tokenRoutes;
