import type { DpopReplay } from "../durable/dpop-replay";
import type { Bindings } from "../env";
import { dpopError, PROOF_MAX_AGE_MS, PROOF_MAX_SKEW_MS, type VerifiedProof } from "./dpop-proof";

/**
 * How many replay objects share one key's proofs: a proof's shard is a hash of its `jti`, so a
 * replayed proof (the same jti) always meets its first use in the same object, while one client's
 * concurrent requests spread over several objects instead of queueing on one (bench/RESULTS.md).
 */
export const REPLAY_SHARDS_PER_KEY = 16;

/** FNV-1a of the jti, modulo the shard count: cheap, and a client choosing its jtis only crowds its own shards. */
function shardOf(jti: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < jti.length; i++) h = Math.imul(h ^ jti.charCodeAt(i), 0x01000193);
  return (h >>> 0) % REPLAY_SHARDS_PER_KEY;
}

/**
 * A proof's `jti` is used once everywhere (RFC 9449 §11.1): the DpopReplay objects of a key
 * thumbprint (REPLAY_SHARDS_PER_KEY of them, chosen by the jti) hold the proofs of that key still
 * inside their window, so one busy client's proofs are serialised only with its own, never with
 * everyone's. Callers start this beside the token's own storage hop (the front door, token info)
 * rather than before it: the check costs no serial hop.
 */
export async function consumeProof(env: Bindings, proof: VerifiedProof): Promise<void> {
  const ns = env.DPOP_REPLAY as unknown as DurableObjectNamespace<DpopReplay>;
  const now = Date.now();
  // The latest moment a proof with this iat can still be accepted: past that the entry may go.
  const until = Math.max(proof.iatMs + PROOF_MAX_AGE_MS, now) + PROOF_MAX_SKEW_MS;
  const fresh = await ns.get(ns.idFromName(`${proof.jkt}#${shardOf(proof.jti)}`)).consume(proof.jti, until, now);
  if (!fresh) throw dpopError("invalid_dpop_proof", "DPoP proof jti was already used");
}
