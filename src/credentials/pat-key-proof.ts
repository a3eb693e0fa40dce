import { decodeProtectedHeader } from "jose";
import { getDb } from "../db/client";
import { findSigningKey } from "../db/ssh-keys";
import type { Bindings } from "../env";
import { dpopError, verifyProof, type VerifiedProof } from "./dpop-proof";
import { consumeProof } from "./dpop-replay";
import type { Principal } from "./principal";
import { parseSshPublicKey } from "./ssh-public-key";

/**
 * Personal access tokens bound to the user's SSH signing keys (GitLab's DPoP experiment, epic
 * 14383; docs/oauth.md, "Personal access tokens bound to SSH keys"). A user who turned on
 * `dpop_enabled` sends with every PAT request a `DPoP` header: a JWT signed by the private half of
 * one of their signing keys, its `kid` the key's `SHA256:` fingerprint (as glab writes it), its
 * `jwk` that key, `ath` the PAT's hash, `exp` at most 5 minutes after `iat`. This service's proof
 * verification (dpop-proof.ts) checks it, with the key pinned to the user's, and its `jti` is used
 * once (dpop-replay.ts), which GitLab does not do.
 */

/** GitLab's DpopToken::MAX_EXPIRY_TIME_IN_SECS. */
export const PAT_PROOF_MAX_LIFETIME_S = 300;

/** GitLab's message prefix, so a glab user recognises the refusal. */
const refuse = (why: string) => dpopError("invalid_dpop_proof", `DPoP validation error: ${why}`);

/** Whether the token's own user (before Sudo) demands a proof with this PAT. */
export function patNeedsKeyProof(principal: Principal): boolean {
  return principal.kind === "personal_access_token" && principal.user.dpopEnabled === true;
}

/**
 * The proof of a PAT request of a `dpop_enabled` user: verified against the user's signing key
 * named by `kid`, and used up. Throws dpopError (invalid_dpop_proof) in every other case.
 */
export async function checkPatKeyProof(env: Bindings, req: Request, principal: Principal, pat: string): Promise<VerifiedProof> {
  const header = req.headers.get("dpop");
  if (header === null) throw refuse("DPoP header is missing");
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(header).kid;
  } catch {
    throw refuse("Malformed JWT, unable to decode");
  }
  if (typeof kid !== "string" || kid.length === 0) throw refuse("No kid in JWT, unable to fetch key");
  const parts = kid.split(":");
  if (parts.length !== 2) throw refuse("Malformed fingerprint value in kid");
  if (parts[0]!.toUpperCase() !== "SHA256") throw refuse("Unsupported fingerprint algorithm in kid");
  const now = Date.now();
  const row = await findSigningKey(getDb(env.DB), principal.user.id, parts[1]!, now);
  const key = row ? parseSshPublicKey(row.key) : null;
  if (!key) throw refuse("No matching key found");
  let proof: VerifiedProof;
  try {
    proof = await verifyProof(env, req, { accessToken: pat, pinned: { jwk: key.jwk, alg: key.alg }, nonce: false });
  } catch (err) {
    const why = err instanceof Error && "dpop" in err ? (err as { dpop: { description: string } }).dpop.description : "invalid proof";
    throw refuse(why);
  }
  if (proof.exp === undefined) throw refuse("exp is missing");
  if (proof.exp * 1000 - proof.iatMs > PAT_PROOF_MAX_LIFETIME_S * 1000) throw refuse("exp must not exceed iat by more than 5 minutes");
  try {
    await consumeProof(env, proof);
  } catch {
    throw refuse("DPoP proof jti was already used");
  }
  return proof;
}
