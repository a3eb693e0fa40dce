import { decodeJwt, errors, jwtVerify } from "jose";
import { getConfig } from "../config";
import type { ApplicationRow } from "../db/applications";
import { claimAssertionJti } from "../db/client-assertion-jtis";
import { getDb } from "../db/client";
import { CLIENT_SIGNING_ALGS } from "../domain/client-key-set";
import type { Bindings } from "../env";
import { clientVerificationKeys } from "./client-keys";
import { OAuthError } from "./errors";

/**
 * private_key_jwt client authentication (RFC 7523 §2.2 and §3, OIDC Core §9): the client signs a
 * short JWT with a key of its registered set. Checked here: the signature (an asymmetric
 * algorithm, a key of the client's set), `iss` = `sub` = client_id, `aud` naming this server (its
 * issuer, its token endpoint, or the endpoint called, as RFC 9126 §2 allows for PAR), `exp` present
 * and at most MAX_ASSERTION_LIFETIME_SECONDS ahead, `jti` present and never used before within the
 * assertion's lifetime (a D1 row with a unique key, src/db/client-assertion-jtis.ts).
 */
export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** How far ahead an assertion's exp may lie: it is made for one request (seconds). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** Clock difference tolerated between the client and this server (seconds). */
export const CLOCK_TOLERANCE_SECONDS = 30;
export const MAX_JTI_LENGTH = 256;

const refuse = (why: string) => new OAuthError("invalid_client", `Client assertion refused: ${why}`);

/** The client an assertion names (its `sub`), read before verification only to find the client's keys. */
export function assertedClientId(assertion: string): string | null {
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === "string" && sub !== "" ? sub : null;
  } catch {
    return null;
  }
}

export async function verifyClientAssertion(env: Bindings, app: ApplicationRow, assertion: string, audiences: readonly string[]): Promise<void> {
  const keys = clientVerificationKeys(app, getConfig(env).allowLoopbackClientMetadata);
  if (!keys) throw refuse("the client has no registered keys.");
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, keys, {
      algorithms: [...CLIENT_SIGNING_ALGS],
      issuer: app.uid,
      subject: app.uid,
      audience: [...audiences],
      requiredClaims: ["exp", "jti"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (e) {
    if (e instanceof OAuthError) throw e;
    if (e instanceof errors.JWTExpired) throw refuse("it has expired.");
    if (e instanceof errors.JWTClaimValidationFailed) throw refuse(`the ${e.claim} claim is not valid.`);
    if (e instanceof errors.JWKSNoMatchingKey) throw refuse("no registered key matches its signature.");
    throw refuse("its signature could not be verified with the client's keys.");
  }
  const now = Date.now();
  const exp = payload.exp! * 1000;
  if (exp > now + (MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000) throw refuse(`exp is more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds ahead.`);
  const jti = payload.jti!;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_LENGTH) throw refuse("jti must be a string of at most 256 characters.");
  // Held until exp (plus the tolerance, during which the assertion is still accepted).
  const claimed = await claimAssertionJti(getDb(env.DB), app.id, jti, exp + CLOCK_TOLERANCE_SECONDS * 1000, now);
  if (!claimed) throw refuse("its jti has been used before.");
}
