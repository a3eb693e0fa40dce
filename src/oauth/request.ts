import type { Context } from "hono";
import { findApplicationByUid, verifyClientSecret, type ApplicationRow } from "../db/applications";
import { getDb } from "../db/client";
import { authMethodOf } from "../domain/client-key-set";
import { CLIENT_ASSERTION_TYPE, assertedClientId, verifyClientAssertion } from "./client-assertion";
import { issuerOf } from "./issuer";
import { recall, remember } from "../credentials/validation-cache";
import { sha256HexMemo } from "../crypto/hash-memo";
import { OAuthError, missingParam } from "./errors";
import { countAddressFailure } from "../credentials/failed-auth-throttle";
import { clientBasicCredentials } from "../credentials/extract";
import type { AppEnv, Bindings } from "../env";
import { clientAddress } from "../http/client-address";
import { formText } from "../http/form-text";

/**
 * Parameters of the token, revoke and introspect endpoints: name=value pairs joined with & (spec),
 * JSON accepted too, as Doorkeeper does. RFC 6749 §3.2: a parameter must not appear twice.
 */
export type Params = Map<string, string>;

export async function readParams(c: Context): Promise<Params> {
  const type = c.req.header("content-type") ?? "";
  const out: Params = new Map();
  if (type.includes("application/json")) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new OAuthError("invalid_request", "The request body is not valid JSON.");
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) throw new OAuthError("invalid_request", "The request body must be a JSON object.");
    for (const [k, v] of Object.entries(body)) if (typeof v === "string" || typeof v === "number") out.set(k, String(v));
  } else {
    const form = new URLSearchParams(await formText(c.req));
    for (const [k, v] of form) {
      if (out.has(k)) throw new OAuthError("invalid_request", `Duplicate parameter: ${k}.`);
      out.set(k, v);
    }
  }
  return out;
}

export interface ClientCredentials {
  clientId: string | null;
  clientSecret: string | null;
  viaBasic: boolean;
  /** A private_key_jwt client assertion (RFC 7523 §2.2), or null. */
  assertion: string | null;
  /** The `aud` values an assertion may name: the issuer, the token endpoint, the endpoint called (none without an assertion). */
  audiences: readonly string[];
}

/** Without an assertion nothing names an audience (built per request only for assertions). */
const NO_ASSERTION: readonly string[] = [];

/**
 * How the request's client authenticates, read once for every endpoint that authenticates clients
 * (token, introspection, revocation, device authorization, PAR): RFC 6749 §2.3.1 HTTP Basic with
 * form-encoded id and secret, or client_id/client_secret in the body; or RFC 7523 §2.2
 * client_assertion_type/client_assertion. RFC 6749 §2.3: one method per request.
 */
export function clientCredentials(c: Context, params: Params): ClientCredentials {
  const basic = clientBasicCredentials(c.req.raw);
  if (basic === "malformed") throw new OAuthError("invalid_client");
  const assertionType = params.get("client_assertion_type");
  const assertion = params.get("client_assertion");
  if (assertionType !== undefined || assertion !== undefined) {
    if (assertionType !== CLIENT_ASSERTION_TYPE) throw new OAuthError("invalid_client", `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}.`);
    if (!assertion) throw new OAuthError("invalid_client", "client_assertion is missing.");
    if (basic || params.has("client_secret")) throw new OAuthError("invalid_request", "Use one client authentication method per request.");
    const named = assertedClientId(assertion);
    if (!named) throw new OAuthError("invalid_client", "Client assertion refused: it is not a JWT with a sub claim.");
    const bodyId = params.get("client_id");
    if (bodyId !== undefined && bodyId !== named) throw new OAuthError("invalid_client");
    const issuer = issuerOf(c);
    const audiences = [...new Set([issuer, `${issuer}/oauth/token`, `${issuer}${new URL(c.req.url).pathname}`])];
    return { clientId: named, clientSecret: null, viaBasic: false, assertion, audiences };
  }
  if (basic) {
    const bodyId = params.get("client_id");
    // Two different client identities in one request: refuse rather than pick one.
    if (bodyId !== undefined && bodyId !== basic.clientId) throw new OAuthError("invalid_client");
    return { ...basic, viaBasic: true, assertion: null, audiences: NO_ASSERTION };
  }
  return { clientId: params.get("client_id") ?? null, clientSecret: params.get("client_secret") ?? null, viaBasic: false, assertion: null, audiences: NO_ASSERTION };
}

/**
 * A wrong client secret counts towards the address's failed-authentication throttle (failed_auth,
 * docs/security.md, Throttle); once the address is banned the answer is 429 instead of 401. Every
 * endpoint that authenticates a client runs it through here. Client secrets carry 256 bits, so
 * there is no check before verifying: a valid secret is never slowed down.
 */
export async function countingSecretFailures<T>(c: Context<AppEnv>, creds: ClientCredentials, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof OAuthError && e.error === "invalid_client" && (creds.clientSecret || creds.assertion)) {
      await countAddressFailure(c.env, { ip: clientAddress(c.req.raw, c.env) }, creds.assertion ? "client_assertion" : "client_secret");
    }
    throw e;
  }
}

export interface AuthenticatedClient {
  app: ApplicationRow;
  /** True when a correct client secret or client assertion was presented; false when the client only named itself. */
  authenticated: boolean;
}

/**
 * Finds the client and checks its secret or its assertion when one is sent, by the method it
 * registered (src/domain/client-key-set.ts `authMethodOf`): a private_key_jwt client proves itself
 * with its key only, and only it may send an assertion. A client that only names itself is
 * returned unauthenticated: the caller decides whether that suffices (PKCE grants, public clients).
 */
export async function identifyClient(env: Bindings, creds: ClientCredentials): Promise<AuthenticatedClient> {
  if (!creds.clientId) throw new OAuthError("invalid_client");
  const app = await findApplicationByUid(getDb(env.DB), creds.clientId);
  if (!app) throw new OAuthError("invalid_client");
  const method = authMethodOf(app);
  if (creds.assertion) {
    if (method !== "private_key_jwt") throw new OAuthError("invalid_client", "This client does not authenticate with private_key_jwt.");
    await verifyClientAssertion(env, app, creds.assertion, creds.audiences);
    return { app, authenticated: true };
  }
  if (creds.clientSecret !== null && creds.clientSecret !== "") {
    // A public client may still send the secret it was given (Doorkeeper verifies it); a key client may not.
    if (method === "private_key_jwt") throw new OAuthError("invalid_client", "This client authenticates with private_key_jwt, not a client secret.");
    if (!(await verifyClientSecret(app, creds.clientSecret))) throw new OAuthError("invalid_client");
    return { app, authenticated: true };
  }
  return { app, authenticated: false };
}

/** Confidential clients must authenticate; public ones may only name themselves (RFC 6749 §2.1). */
export async function authenticateClient(env: Bindings, creds: ClientCredentials): Promise<AuthenticatedClient> {
  const client = await identifyClient(env, creds);
  if (client.app.confidential && !client.authenticated) throw new OAuthError("invalid_client");
  return client;
}

const secretHashes = sha256HexMemo(1024);

/**
 * `authenticateClient` through the validation cache (DESIGN, "Validation cache"), for calls that
 * need an authenticated client and nothing else of it (introspection, and the refresh grant's
 * client, whose grant its family governs: src/oauth/grants/client.ts): a confidential client's
 * id and secret, once verified against D1, are remembered for at most L, keyed by the secret's
 * hash (never the secret). Renewing the secret or deleting the application waits out L before it
 * answers (src/services/applications.ts), so after it answers the old secret authenticates
 * nowhere. Only a correct secret is remembered; failures go to D1 (and the throttle) every time.
 */
export async function authenticateClientRemembered(env: Bindings, creds: ClientCredentials): Promise<AuthenticatedClient> {
  // An assertion is single-use: there is nothing to remember.
  if (!creds.clientId || !creds.clientSecret) return authenticateClient(env, creds);
  const key = `oauth-client:${creds.clientId}:${await secretHashes.hash(creds.clientSecret)}`;
  const askedAt = Date.now();
  const known = recall<ApplicationRow>(env, key, askedAt);
  if (known) return { app: known, authenticated: true };
  const client = await authenticateClient(env, creds);
  if (client.authenticated) remember(env, key, client.app, askedAt, null);
  return client;
}

export function requireParams(params: Params, names: readonly string[]): void {
  for (const name of names) {
    const v = params.get(name);
    if (v === undefined || v === "") throw missingParam(name);
  }
}
