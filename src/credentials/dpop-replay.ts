import type { DpopReplay } from "../durable/dpop-replay";
import type { Bindings } from "../env";
import { dpopError, PROOF_MAX_AGE_MS, PROOF_MAX_SKEW_MS, type VerifiedProof } from "./dpop-proof";

/**
 * A proof's `jti` is used once everywhere (RFC 9449 §11.1): one DpopReplay object per key
 * thumbprint holds the proofs of that key still inside their window, so one busy client's proofs
 * are serialised only with its own, never with everyone's. Callers start this beside the token's
 * own storage hop (the front door, token info) rather than before it: the check costs no serial hop.
 */
export async function consumeProof(env: Bindings, proof: VerifiedProof): Promise<void> {
  const ns = env.DPOP_REPLAY as unknown as DurableObjectNamespace<DpopReplay>;
  const now = Date.now();
  // The latest moment a proof with this iat can still be accepted: past that the entry may go.
  const until = Math.max(proof.iatMs + PROOF_MAX_AGE_MS, now) + PROOF_MAX_SKEW_MS;
  const fresh = await ns.get(ns.idFromName(proof.jkt)).consume(proof.jti, until, now);
  if (!fresh) throw dpopError("invalid_dpop_proof", "DPoP proof jti was already used");
}
