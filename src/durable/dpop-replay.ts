import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/**
 * The DPoP proofs already seen (RFC 9449 §11.1: a proof's `jti` is used once), for one shard of
 * key thumbprints (src/credentials/dpop-replay.ts picks the shard). A proof is only accepted
 * within its `iat` window, so each entry is kept until the window that could accept it again has
 * passed (`until`) and an alarm sweeps what is older: the state is bounded by the proofs of one
 * window. The method is synchronous (SQLite-backed sync KV), so two isolates presenting the same
 * proof at once are serialised here and exactly one wins; its answer leaves only once the writes
 * are durable (the output gate), so no failed write can forget a proof it accepted.
 */
export class DpopReplay extends DurableObject<Bindings> {
  private sweepArmed = false;

  /** True the first time `jti` is seen within its window; false on a replay. */
  consume(jti: string, until: number, now: number): boolean {
    const kv = this.ctx.storage.kv;
    const seen = kv.get<number>(jti);
    if (seen !== undefined && seen > now) return false;
    kv.put(jti, until);
    if (!this.sweepArmed) {
      this.sweepArmed = true;
      void this.ctx.storage.setAlarm(until);
    }
    return true;
  }

  /** Drops the entries whose window has passed; re-arms while any remain. */
  async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    let next = Infinity;
    for (const [key, until] of kv.list<number>()) {
      if (until <= now) kv.delete(key);
      else next = Math.min(next, until);
    }
    this.sweepArmed = next !== Infinity;
    if (this.sweepArmed) void this.ctx.storage.setAlarm(next);
  }
}
