import { getConfig, newApplicationTtl } from "../../config";
import { storeMetadataDocumentApplication } from "../../services/metadata-document-clients";
import { findApplicationByUid, saveMetadataDocumentApplication, type ApplicationRow, type MetadataDocumentClient } from "../../db/applications";
import { getDb } from "../../db/client";
import { AppError } from "../../domain/errors";
import { formatScopes, parseScopes } from "../../domain/scopes";
import type { Bindings } from "../../env";
import { OAuthError } from "../errors";
import { checkRegistration } from "../registration/metadata";
import { attemptKeys, attemptRefused, countAttempt } from "../throttle";
import { documentUrl, fetchDocument, looksLikeDocumentUrl } from "./fetch-document";

/**
 * The client of an authorization request: a registered application, or the application of a
 * Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document). A document is
 * validated like a dynamic registration (src/oauth/registration/metadata.ts: a public client,
 * PKCE, the registration's redirect-URI rules).
 *
 * A document client costs what a registration costs (docs/agents.md, "Document clients"): a
 * document with no stored application is fetched only within the client address's throttle
 * (bucket client_metadata_document, src/oauth/throttle.ts), and its application is not stored
 * until a signed-in person approves it (storeDocumentClient, audited then). Until then it is an
 * unstored row (id UNSTORED_APPLICATION_ID) that lives for one request, so anonymous requests,
 * consent pages and refusals add no row. A stored application is refetched when its cache time is
 * over (Cache-Control within the bounds of fetch-document.ts) and updated in place.
 *
 * Throws OAuthError invalid_client naming the reason when a document is refused, AppError
 * rate_limited when the address is over its throttle.
 */
export const UNSTORED_APPLICATION_ID = 0;

export const isUnstoredDocumentClient = (app: ApplicationRow): boolean => app.id === UNSTORED_APPLICATION_ID;

export async function findAuthorizeClient(env: Bindings, clientId: string, ip: string | null): Promise<ApplicationRow | null> {
  const db = getDb(env.DB);
  const row = await findApplicationByUid(db, clientId);
  if (!looksLikeDocumentUrl(clientId)) return row;
  // An application of another kind keeps its own registration.
  if (row && (row.metadataExpiresAt === null || row.metadataExpiresAt > Date.now())) return row;
  const config = getConfig(env);
  const url = documentUrl(clientId, config.allowLoopbackClientMetadata);
  // Refetching a stored (approved) client is bounded by its cache time; a new one by the throttle.
  if (!row) await chargeFetch(env, ip);
  const { document, cacheSeconds } = await fetchDocument(url);
  const registration = validateDocument(document, clientId, config.allowInsecureRedirects, config.allowLoopbackClientMetadata);
  const fields = {
    uid: clientId,
    name: registration.name,
    redirectUri: registration.redirectUris.join("\n"),
    scopes: registration.scopes,
    accessTokenTtlSeconds: newApplicationTtl(env),
    expiresAt: Date.now() + cacheSeconds * 1000,
    jwks: registration.jwks,
    jwksUri: registration.jwksUri,
    tokenEndpointAuthMethod: registration.tokenEndpointAuthMethod,
  };
  if (row) return (await saveMetadataDocumentApplication(db, fields)) ?? row;
  return unstoredRow(fields);
}

/**
 * The application of an approved document client: stored (or refreshed, when another approval
 * stored it meanwhile) and audited with the person and the client address. A stored one is returned as is.
 */
export async function storeDocumentClient(env: Bindings, app: ApplicationRow, who: { userId: number; ip: string | null }): Promise<ApplicationRow> {
  if (!isUnstoredDocumentClient(app)) return app;
  const saved = await storeMetadataDocumentApplication(env, { id: who.userId, ip: who.ip }, {
    uid: app.uid,
    name: app.name,
    redirectUri: app.redirectUri,
    scopes: parseScopes(app.scopes),
    accessTokenTtlSeconds: app.accessTokenTtlSeconds,
    expiresAt: app.metadataExpiresAt ?? Date.now(),
    jwks: app.jwks,
    jwksUri: app.jwksUri,
    tokenEndpointAuthMethod: app.tokenEndpointAuthMethod,
  });
  if (!saved) throw new OAuthError("invalid_client", "Client metadata document refused: another application has this client_id.");
  return saved;
}

/** Counts one fetch against the address, or refuses when the address is over its limit. */
async function chargeFetch(env: Bindings, ip: string | null): Promise<void> {
  const keys = attemptKeys(ip);
  const refused = await attemptRefused(env, "client_metadata_document", keys);
  if (refused) {
    const minutes = Math.max(1, Math.ceil(refused.retryAfterSeconds / 60));
    throw new AppError("rate_limited", `Too many client metadata documents fetched for your network address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
      retryAfterSeconds: refused.retryAfterSeconds,
    });
  }
  await countAttempt(env, "client_metadata_document", keys);
}

/** A document client's row before any approval: what the checks and the consent page read. */
function unstoredRow(f: MetadataDocumentClient): ApplicationRow {
  return {
    id: UNSTORED_APPLICATION_ID,
    uid: f.uid,
    name: f.name,
    secretHash: "",
    redirectUri: f.redirectUri,
    scopes: formatScopes(f.scopes),
    // A client that proves itself with its key is confidential (src/db/applications.ts does the same when storing).
    confidential: f.tokenEndpointAuthMethod === "private_key_jwt",
    expireAccessTokens: true,
    trusted: false,
    ownerId: null,
    accessTokenTtlSeconds: f.accessTokenTtlSeconds,
    dynamic: true,
    metadataExpiresAt: f.expiresAt,
    jwks: f.jwks ?? null,
    jwksUri: f.jwksUri ?? null,
    tokenEndpointAuthMethod: f.tokenEndpointAuthMethod ?? null,
    // Its document is its configuration: no RFC 7592 token, no registration type.
    registrationTokenHash: null,
    applicationType: null,
    // No logout settings for a document client (docs/oidc.md, "Signing out").
    postLogoutRedirectUris: "",
    backchannelLogoutUri: null,
    backchannelLogoutSessionRequired: false,
    createdAt: Date.now(),
    dpopBoundAccessTokens: false,
    requirePushedAuthorizationRequests: false,
  };
}

/** §4.1: the document names itself and carries no secret; the rest is a registration's metadata. */
function validateDocument(document: Record<string, unknown>, clientId: string, allowInsecureRedirects: boolean, allowLoopbackKeys: boolean) {
  const refuse = (why: string) => new OAuthError("invalid_client", `Client metadata document refused: ${why}`);
  if (document.client_id !== clientId) throw refuse("its client_id is not the URL it was fetched from.");
  if (document.client_secret !== undefined || document.client_secret_expires_at !== undefined) throw refuse("a metadata document must not contain a client secret.");
  try {
    return checkRegistration(document, allowInsecureRedirects, allowLoopbackKeys);
  } catch (e) {
    if (e instanceof OAuthError) throw refuse(e.description);
    throw e;
  }
}
