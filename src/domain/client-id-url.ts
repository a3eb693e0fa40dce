/**
 * Client ids that are Client ID Metadata Document URLs (draft-ietf-oauth-client-id-metadata-document):
 * how one is recognised and shown to a person. Plain rules, for the OAuth endpoints and the pages
 * alike; the guarded fetch of a document is src/oauth/client-metadata/fetch-document.ts.
 */

/** Whether a client_id is meant as a document URL (it has an http(s) scheme), whatever its validity. */
export function looksLikeDocumentUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** The host to show a person for a client identified by its metadata document's URL; null for other clients. */
export function documentHost(clientId: string): string | null {
  if (!looksLikeDocumentUrl(clientId)) return null;
  try {
    return new URL(clientId).host;
  } catch {
    return null;
  }
}
