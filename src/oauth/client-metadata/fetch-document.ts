import { isLoopbackAddressUrl, isPublicHost } from "../../domain/public-host";
import { OAuthError } from "../errors";
import { looksLikeDocumentUrl } from "../../domain/client-id-url";

export { documentHost, looksLikeDocumentUrl } from "../../domain/client-id-url";

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): which client ids
 * are document URLs, and the guarded fetch of a document. The server fetches a URL anyone may
 * hand it, so every guard of such a fetcher applies (docs/agents.md, "Client ID Metadata
 * Documents"): https only, public hosts only, no redirects, a size and a time limit, JSON only.
 */

/** The draft's suggested bound on a document; real ones are a few hundred bytes. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;
/** Cache bounds (seconds): Cache-Control's max-age is honoured within them. */
export const MIN_CACHE_SECONDS = 60;
export const MAX_CACHE_SECONDS = 24 * 60 * 60;
export const DEFAULT_CACHE_SECONDS = 60 * 60;
/** The longest client_id URL accepted (the consent page and the applications list show it). */
export const MAX_URL_LENGTH = 2048;

const refuse = (why: string) => new OAuthError("invalid_client", `Client metadata document refused: ${why}`);


/**
 * The document URL a client_id names, checked by the draft's rules (§3: https, a path, no
 * fragment, no credentials, no dot segments) and this server's (a public host). Under
 * ALLOW_LOOPBACK_CLIENT_METADATA an http URL on 127.0.0.1 or [::1] stands in (development).
 */
export function documentUrl(clientId: string, allowLoopback: boolean): URL {
  if (clientId.length > MAX_URL_LENGTH) throw refuse(`the URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse("the client_id is not a valid URL.");
  }
  // The URL must be used as given: a normalised form would be another client id. This also
  // refuses dot segments (§3), which the parser removes.
  if (url.href !== clientId) throw refuse("the URL is not in its normal form (no dot segments, lower-case scheme and host).");
  const loopback = allowLoopback && isLoopbackAddressUrl(url);
  if (url.protocol !== "https:" && !loopback) throw refuse("the URL must use https.");
  if (url.username || url.password) throw refuse("the URL must not contain credentials.");
  if (url.hash || clientId.includes("#")) throw refuse("the URL must not contain a fragment.");
  if (url.pathname === "/" || url.pathname === "") throw refuse("the URL must contain a path.");
  if (!loopback && !isPublicHost(url.hostname)) throw refuse("the URL's host is not a public address.");
  return url;
}

/** How long a fetched document may be used: Cache-Control's max-age (or no-store), within the bounds. */
export function cacheSeconds(cacheControl: string | null): number {
  if (!cacheControl) return DEFAULT_CACHE_SECONDS;
  const directives = cacheControl.toLowerCase().split(",").map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return MIN_CACHE_SECONDS;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)).find(Boolean);
  if (!maxAge) return DEFAULT_CACHE_SECONDS;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, Number(maxAge[1])));
}

async function readBounded(body: ReadableStream<Uint8Array>, limit: number, refuse: (why: string) => Error): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw refuse(`the document is larger than ${limit} bytes.`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The body within the size bound, under the same time limit as the headers (the fetch's signal
 * covers the body too): a body that trickles past the limit, or a connection cut before its end,
 * is a refusal that says so, never an unexpected error.
 */
async function readBody(body: ReadableStream<Uint8Array>, maxBytes: number, refuse: (why: string) => Error): Promise<Uint8Array> {
  try {
    return await readBounded(body, maxBytes, refuse);
  } catch (e) {
    if (e instanceof OAuthError) throw e;
    if (isTimeout(e)) throw refuse(`the document was not complete within ${FETCH_TIMEOUT_MS / 1000} seconds.`);
    throw refuse("the connection was cut before the document was complete.");
  }
}

const isTimeout = (e: unknown) => e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");

/** Fetches and parses the document: an object, or OAuthError invalid_client saying which guard refused it. */
export function fetchDocument(url: URL): Promise<{ document: Record<string, unknown>; cacheSeconds: number }> {
  return fetchPublicJson(url, { maxBytes: MAX_DOCUMENT_BYTES, refuse });
}

/**
 * The guarded fetch of a JSON object at a URL someone handed the server (metadata documents, a
 * client's jwks_uri): the URL's host has been checked public by the caller; here no redirect is
 * followed, the answer must be 200 application/json within `maxBytes` and FETCH_TIMEOUT_MS, and
 * its Cache-Control is read within the bounds. `refuse` words the error of each guard.
 */
export async function fetchPublicJson(
  url: URL,
  limits: { maxBytes: number; refuse: (why: string) => Error },
): Promise<{ document: Record<string, unknown>; cacheSeconds: number }> {
  const { maxBytes, refuse } = limits;
  let res: Response;
  try {
    // redirect "manual": a redirect is refused, never followed (it could lead to a private host).
    res = await fetch(url.href, { redirect: "manual", headers: { Accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (e) {
    if (isTimeout(e)) throw refuse(`no answer within ${FETCH_TIMEOUT_MS / 1000} seconds.`);
    throw refuse("the document could not be fetched.");
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw refuse("the URL answered with a redirect; redirects are not followed.");
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw refuse(`the URL answered ${res.status}.`);
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    await res.body?.cancel();
    throw refuse("the document is not served as application/json.");
  }
  const declared = Number(res.headers.get("content-length"));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw refuse(`the document is larger than ${maxBytes} bytes.`);
  }
  const bytes = res.body ? await readBody(res.body, maxBytes, refuse) : new Uint8Array();
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw refuse("the document is not valid JSON.");
  }
  if (!document || typeof document !== "object" || Array.isArray(document)) throw refuse("the document is not a JSON object.");
  return { document: document as Record<string, unknown>, cacheSeconds: cacheSeconds(res.headers.get("cache-control")) };
}
