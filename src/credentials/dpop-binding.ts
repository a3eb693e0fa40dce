import type { Bindings } from "../env";
import { dpopError, verifyProof, type VerifiedProof } from "./dpop-proof";
import { consumeProof } from "./dpop-replay";
import type { PresentedCredential } from "./extract";

/**
 * A DPoP-bound token at a resource door (RFC 9449 §7): the door's half of sender constraint. The
 * proof's verification (CPU) and its single use (the key's replay object) run *beside* the token's
 * own storage hop, started together and awaited together, so a DPoP request costs the same number
 * of serial hops as a Bearer one (docs/scaling.md, DPoP). Then the token's binding and the
 * proof's key must agree.
 */

/**
 * For a credential sent under the DPoP scheme: the proof, verified and used up (rejects with
 * dpopError); null for any other credential. Start it before resolving the token and await both.
 */
export function checkProof(env: Bindings, req: Request, presented: PresentedCredential): Promise<VerifiedProof> | null {
  if (!presented.dpop) return null;
  return (async () => {
    const proof = await verifyProof(env, req, { accessToken: presented.secret });
    await consumeProof(env, proof);
    return proof;
  })();
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
