import { getConfig } from "../../config";
import { findApplicationByUid, saveMetadataDocumentApplication, type ApplicationRow } from "../../db/applications";
import { getDb } from "../../db/client";
import type { Bindings } from "../../env";
import { OAuthError } from "../errors";
import { newApplicationTtl } from "../../config";
import { checkRegistration } from "../registration/metadata";
import { documentUrl, fetchDocument, looksLikeDocumentUrl } from "./fetch-document";

/**
 * The client of an authorization request: a registered application, or the application of a
 * Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document), fetched when it is
 * not cached or its cache time is over. A document is validated like a dynamic registration
 * (src/oauth/registration/metadata.ts: a public client, PKCE, the registration's redirect-URI
 * rules) and kept as a dynamic application whose uid is the URL, so the token endpoint, the
 * consent page and the authorized-applications list treat it as any registered client.
 *
 * Throws OAuthError invalid_client naming the reason when a document is refused.
 */
export async function findAuthorizeClient(env: Bindings, clientId: string): Promise<ApplicationRow | null> {
  const db = getDb(env.DB);
  const row = await findApplicationByUid(db, clientId);
  if (!looksLikeDocumentUrl(clientId)) return row;
  // An application of another kind keeps its own registration.
  if (row && (row.metadataExpiresAt === null || row.metadataExpiresAt > Date.now())) return row;
  const config = getConfig(env);
  const url = documentUrl(clientId, config.allowLoopbackClientMetadata);
  const { document, cacheSeconds } = await fetchDocument(url);
  const registration = validateDocument(document, clientId, config.allowInsecureRedirects, config.allowLoopbackClientMetadata);
  const saved = await saveMetadataDocumentApplication(db, {
    uid: clientId,
    name: registration.name,
    redirectUri: registration.redirectUris.join("\n"),
    scopes: registration.scopes,
    accessTokenTtlSeconds: newApplicationTtl(env),
    expiresAt: Date.now() + cacheSeconds * 1000,
    jwks: registration.jwks,
    jwksUri: registration.jwksUri,
    tokenEndpointAuthMethod: registration.tokenEndpointAuthMethod,
  });
  return saved ?? row;
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
