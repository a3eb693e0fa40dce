import { Hono, type Context } from "hono";
import { getConfig } from "../../config";
import { bearerToken } from "../../credentials/extract";
import type { AppEnv } from "../../env";
import { clientAddress } from "../../http/client-address";
import { deleteApplication, updateDynamicApplication } from "../../services/applications";
import { clientOfRegistrationToken } from "../../services/dynamic-clients";
import { OAuthError } from "../errors";
import { issuerOf } from "../issuer";
import { clientInformation, registrationClientUri } from "./client-information";
import { checkRegistration, readMetadataBody } from "./metadata";

/**
 * The client configuration endpoint (RFC 7592 §2): a dynamically registered client reads (GET),
 * replaces (PUT) and deletes (DELETE) its own registration at its `registration_client_uri`, with
 * the registration access token of its registration or last update as a bearer token. A bad token,
 * another client's token and a client that no longer exists are all 401 with `WWW-Authenticate:
 * Bearer` (§2.1-§2.3; the renderer of the OAuth family adds the challenge). Errors render in the
 * parent's OAuth shape (./routes.ts).
 */
const configuration = new Hono<AppEnv>();

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

async function registeredClient(c: Context<AppEnv>) {
  const found = await clientOfRegistrationToken(c.env, c.req.param("client_id") ?? "", bearerToken(c.req.raw), clientAddress(c.req.raw, c.env));
  if (!found) throw new OAuthError("invalid_token", "The registration access token is invalid, or the client does not exist.");
  return found;
}

/** §2.1 read: the registration as stored. The token presented stays current (only its hash is kept, so it is not echoed). */
configuration.get("/register/:client_id", async (c) => {
  const { app } = await registeredClient(c);
  return c.json(clientInformation(app, issuerOf(c), null), 200, NO_STORE);
});

/**
 * §2.2 update: the body replaces the registration (an omitted field returns to its default), checked
 * by the rules of registration. It must name the client (`client_id`); the members the server
 * issued may be repeated only with their current values; a client secret is never part of it (none
 * is issued). The answer carries a new registration access token; the one presented stops working.
 */
configuration.put("/register/:client_id", async (c) => {
  const { app, tokenHash } = await registeredClient(c);
  const body = await readMetadataBody(c.req.raw);
  const config = getConfig(c.env);
  const reg = checkRegistration(body, config.allowInsecureRedirects, config.allowLoopbackClientMetadata);
  const m = body as Record<string, unknown>;
  if (m.client_id !== app.uid) throw new OAuthError("invalid_client_metadata", "client_id must be sent and be this client's identifier.");
  if ("client_secret" in m) throw new OAuthError("invalid_client_metadata", "This client has no client secret.");
  if (m.registration_client_uri !== undefined && m.registration_client_uri !== registrationClientUri(issuerOf(c), app.uid)) {
    throw new OAuthError("invalid_client_metadata", "registration_client_uri does not match this client's.");
  }
  if (m.registration_access_token !== undefined && m.registration_access_token !== bearerToken(c.req.raw)) {
    throw new OAuthError("invalid_client_metadata", "registration_access_token does not match the token presented.");
  }
  const updated = await updateDynamicApplication(c.env, clientAddress(c.req.raw, c.env), app, tokenHash, reg);
  // Another update with the same token won the race: this token is no longer current.
  if (!updated) throw new OAuthError("invalid_token", "The registration access token was replaced by another update.");
  return c.json(clientInformation(updated.row, issuerOf(c), updated.registrationToken), 200, NO_STORE);
});

/** §2.3 delete: the client, its registration access token and every grant of it end (the application_deleted change). */
configuration.delete("/register/:client_id", async (c) => {
  const { app } = await registeredClient(c);
  await deleteApplication(c.env, null, app);
  return c.body(null, 204, NO_STORE);
});

export default configuration;
