import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/**
 * The DPoP proofs already seen (RFC 9449 §11.1: a proof's `jti` is used once), for one shard of
 * key thumbprints (src/credentials/dpop-replay.ts picks the shard). A proof is only accepted
 * within its `iat` window, so each entry is kept until the window that could accept it again has
 * passed (`until`) and an alarm sweeps what is older: the state is bounded by the proofs of one
 * window. Two isolates presenting the same proof at once are serialised here and exactly one wins.
 */
export class DpopReplay extends DurableObject<Bindings> {
  private sweepArmed = false;

  /**
   * True the first time `key` (thumbprint and jti) is seen within its window; false on a replay.
   * The object is the one place that answers for its proofs, and its storage's write cache sees
   * the entry at once, so every later call here (concurrent ones included: the read holds the
   * input gate) finds it. The answer does not wait for the write to reach disk (allowUnconfirmed):
   * waiting made every DPoP request cost a durable write (bench/RESULTS.md). Only a failure of that
   * write could forget a proof, and then the object restarts; docs/scaling.md, DPoP, says so.
   */
  async consume(key: string, until: number, now: number): Promise<boolean> {
    const storage = this.ctx.storage;
    const seen = await storage.get<number>(key);
    if (seen !== undefined && seen > now) return false;
    void storage.put(key, until, { allowUnconfirmed: true });
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
