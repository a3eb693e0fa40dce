import type { DpopReplay } from "../durable/dpop-replay";
import type { Bindings } from "../env";
import { dpopError, PROOF_MAX_AGE_MS, PROOF_MAX_SKEW_MS, type VerifiedProof } from "./dpop-proof";

/**
 * A proof's `jti` is used once everywhere (RFC 9449 §11.1). The shared state is the DpopReplay
 * objects of the key's thumbprint (REPLAY_SHARDS_PER_KEY of them, chosen by the jti), the only
 * place that can accept a jti. A memory of the jtis this isolate has sent (SeenJtis) refuses a
 * replay into the same isolate without a hop; it only ever refuses, never accepts. The call is not
 * coalesced with other requests' calls: workerd refuses I/O shared between requests
 * (docs/scaling.md, DPoP).
 */

/**
 * How many replay objects share one key's proofs: a proof's shard is a hash of its `jti`, so a
 * replayed proof (the same jti) always meets its first use in the same object, while one client's
 * concurrent requests spread over several objects instead of queueing on one (bench/RESULTS.md).
 * Changing it moves in-window jtis to other objects: never change it without waiting out a window.
 */
export const REPLAY_SHARDS_PER_KEY = 16;

/** FNV-1a of the jti, modulo the shard count: cheap, and a client choosing its jtis only crowds its own shards. */
function shardOf(jti: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < jti.length; i++) h = Math.imul(h ^ jti.charCodeAt(i), 0x01000193);
  return (h >>> 0) % REPLAY_SHARDS_PER_KEY;
}

/** The jtis one isolate has already sent to the shared check, until their window passes (bounded). */
export class SeenJtis {
  private readonly until = new Map<string, number>();
  constructor(private readonly limit = 20_000) {}

  /** False if `key` was seen and its window is still open (a replay); else remembers it. */
  claim(key: string, until: number, now: number): boolean {
    const seen = this.until.get(key);
    if (seen !== undefined && seen > now) return false;
    if (this.until.size >= this.limit) this.evict(now);
    this.until.set(key, until);
    return true;
  }

  /** Drops what has expired, else the oldest half: forgetting only costs the hop it would have saved. */
  private evict(now: number): void {
    for (const [key, until] of this.until) if (until <= now) this.until.delete(key);
    if (this.until.size < this.limit) return;
    let drop = this.until.size / 2;
    for (const key of this.until.keys()) {
      if (drop-- <= 0) break;
      this.until.delete(key);
    }
  }
}

const isolateSeen = new SeenJtis();

/**
 * Uses up the proof's jti (rejects with invalid_dpop_proof on a replay). `seen`: this isolate's
 * memory; a test passes a fresh one to stand for another isolate.
 */
export async function consumeProof(env: Bindings, proof: VerifiedProof, seen: SeenJtis = isolateSeen): Promise<void> {
  const ns = env.DPOP_REPLAY as unknown as DurableObjectNamespace<DpopReplay>;
  const now = Date.now();
  // The latest moment a proof with this iat can still be accepted: past that the entry may go.
  const until = Math.max(proof.iatMs + PROOF_MAX_AGE_MS, now) + PROOF_MAX_SKEW_MS;
  const replayed = () => dpopError("invalid_dpop_proof", "DPoP proof jti was already used");
  if (!seen.claim(`${proof.jkt}#${proof.jti}`, until, now)) throw replayed();
  const shard = ns.get(ns.idFromName(`${proof.jkt}#${shardOf(proof.jti)}`));
  if (!(await shard.consume(proof.jti, until, now))) throw replayed();
}
