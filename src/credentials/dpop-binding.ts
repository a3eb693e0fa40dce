import type { Bindings } from "../env";
import { DpopError, verifyProof, type VerifiedProof } from "./dpop-proof";
import { consumeProof } from "./dpop-replay";
import type { PresentedCredential } from "./extract";

/**
 * A DPoP-bound token at a resource door (RFC 9449 §7): the door's half of sender constraint. The
 * proof is verified (CPU) before the token is resolved, and its single use is checked *beside*
 * the token's own storage hop, so a DPoP request costs the same number of serial hops as a Bearer
 * one (docs/scaling.md, DPoP). Then the token's binding and the proof's key must agree.
 */
export interface PendingProof {
  proof: VerifiedProof;
  /** The replay check, already running; rejects with DpopError on a replayed jti. */
  replay: Promise<void>;
}

/** For a credential sent under the DPoP scheme: its verified proof and running replay check; else null. */
export async function startProofCheck(env: Bindings, req: Request, presented: PresentedCredential): Promise<PendingProof | null> {
  if (!presented.dpop) return null;
  const proof = await verifyProof(env, req, { accessToken: presented.secret });
  const replay = consumeProof(env, proof);
  // Awaited by the caller with the token's resolution; never left unhandled if that throws first.
  replay.catch(() => {});
  return { proof, replay };
}

/**
 * §7.1, §7.2: a token bound to a key is accepted only under the DPoP scheme with a proof of that
 * key; a token that is not bound is not accepted under the DPoP scheme (the client believes it
 * holds a bound token: refuse rather than silently downgrade). `boundJkt`: the token's binding.
 */
export function requireBinding(boundJkt: string | null | undefined, pending: PendingProof | null): void {
  if (boundJkt) {
    if (!pending) throw new DpopError("invalid_token", "DPoP-bound access token requires the DPoP authentication scheme and a proof");
    if (pending.proof.jkt !== boundJkt) throw new DpopError("invalid_token", "DPoP proof key does not match the key the token is bound to");
  } else if (pending) {
    throw new DpopError("invalid_token", "the access token is not DPoP-bound");
  }
}
