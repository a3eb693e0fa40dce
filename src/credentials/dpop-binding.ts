import type { Bindings } from "../env";
import { dpopError, verifyProof, type VerifiedProof } from "./dpop-proof";
import { consumeProof } from "./dpop-replay";
import type { PresentedCredential } from "./extract";

/**
 * A DPoP-bound token at a resource door (RFC 9449 §7): the door's half of sender constraint. The
 * proof's verification (CPU) runs beside the token's own storage hop; its single use (the key's
 * replay object, src/credentials/dpop-replay.ts) starts as soon as the proof is verified, so it
 * also runs beside the token's hop and, for a safe method, beside the route's own work
 * (docs/scaling.md, DPoP). Then the token's binding and the proof's key must agree.
 */

/** A proof under way: `proof` once verified (rejects with dpopError); `used` once its jti is used up. */
export interface ProofCheck {
  proof: Promise<VerifiedProof>;
  used: Promise<void>;
}

/**
 * For a credential sent under the DPoP scheme: the proof's verification and use, both started
 * now; null for any other credential. The caller awaits `proof` with the token and `used` before
 * its answer leaves.
 */
export function checkProof(env: Bindings, req: Request, presented: PresentedCredential): ProofCheck | null {
  if (!presented.dpop) return null;
  const proof = verifyProof(env, req, { accessToken: presented.secret });
  const used = proof.then((p) => consumeProof(env, p));
  // Awaited by the caller unless the request was refused first; never an unhandled rejection.
  used.catch(() => undefined);
  return { proof, used };
}

/**
 * §7.1, §7.2: a token bound to a key is accepted only under the DPoP scheme with a proof of that
 * key; a token that is not bound is not accepted under the DPoP scheme (the client believes it
 * holds a bound token: refuse rather than silently downgrade). `boundJkt`: the token's binding.
 */
export function requireBinding(boundJkt: string | null | undefined, proof: VerifiedProof | null): void {
  if (boundJkt) {
    if (!proof) throw dpopError("invalid_token", "DPoP-bound access token requires the DPoP authentication scheme and a proof");
    if (proof.jkt !== boundJkt) throw dpopError("invalid_token", "DPoP proof key does not match the key the token is bound to");
  } else if (proof) {
    throw dpopError("invalid_token", "the access token is not DPoP-bound");
  }
}
