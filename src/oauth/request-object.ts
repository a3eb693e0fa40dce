import { errors, jwtVerify } from "jose";
import { getConfig } from "../config";
import type { ApplicationRow } from "../db/applications";
import type { Bindings } from "../env";
import { clientVerificationKeys } from "./client-keys";
import { OAuthError } from "./errors";

/**
 * Signed authorization requests (RFC 9101, JAR): `request` is a JWT signed with a key the client
 * registered (`jwks` or `jwks_uri`, src/oauth/client-keys.ts), whose claims are the authorization
 * request's parameters. Accepted at /oauth/authorize and at POST /oauth/par; the parameters of the
 * object alone are used (§6.3), never merged with the outer ones.
 */
export const REQUEST_OBJECT_SIGNING_ALGS = ["RS256", "PS256", "ES256", "ES384"] as const;

/** JWT claims of the object itself, not parameters of the request (§4, RFC 7519). */
const JWT_CLAIMS = new Set(["iss", "aud", "exp", "iat", "nbf", "jti", "sub"]);

const invalid = (why: string) => new OAuthError("invalid_request_object", why);

/**
 * The parameters of `app`'s request object, verified: signature by one of its keys with an
 * asymmetric alg (never `none`), `typ` oauth-authz-req+jwt when present (§10.8), `iss` its
 * client_id (§6.1), `aud` this issuer, `exp`/`nbf` when present, and a `client_id` claim, if
 * any, equal to the outer one (§6.3). Throws OAuthError invalid_request_object.
 */
export async function openRequestObject(env: Bindings, jwt: string, app: ApplicationRow, issuer: string): Promise<URLSearchParams> {
  const keys = clientVerificationKeys(app, getConfig(env).allowLoopbackClientMetadata);
  if (!keys) throw invalid("The client has registered no keys (jwks or jwks_uri) to verify a request object with.");
  let payload: Record<string, unknown>;
  let typ: string | undefined;
  try {
    const verified = await jwtVerify(jwt, keys, { issuer: app.uid, audience: issuer, algorithms: [...REQUEST_OBJECT_SIGNING_ALGS] });
    payload = verified.payload as Record<string, unknown>;
    typ = verified.protectedHeader.typ;
  } catch (e) {
    if (e instanceof OAuthError) throw e;
    const why = e instanceof errors.JWTClaimValidationFailed ? `its ${e.claim} claim is not valid` : "its signature could not be verified with the client's keys";
    throw invalid(`The request object was refused: ${why}.`);
  }
  if (typ !== undefined && typ.toLowerCase() !== "oauth-authz-req+jwt") throw invalid("The request object's typ must be oauth-authz-req+jwt.");
  if (payload.client_id !== undefined && payload.client_id !== app.uid) throw invalid("The request object's client_id differs from the request's.");
  if (payload.request !== undefined || payload.request_uri !== undefined) throw invalid("A request object cannot carry request or request_uri.");
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name) || value === null || value === undefined) continue;
    params.set(name, typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value));
  }
  params.set("client_id", app.uid);
  return params;
}
