import type { Db } from "../db/client";
import { claimUpload, releaseUpload, renewUploadLease, type UploadChunk, type UploadRow } from "../db/registry-content";
import { RegistryError } from "./errors";

/**
 * Leases, not locks (DESIGN, "Changes that finish"): a request writing to an upload session holds
 * it for UPLOAD_LEASE_MS, and renews that as its bytes arrive. A request that died (its isolate or
 * the whole process killed mid-PATCH or mid-PUT) stops renewing, so another request takes the
 * session over at most UPLOAD_LEASE_MS later. A live but stalled request (no byte for that long)
 * loses its lease the same way; its chunk is then discarded, never recorded over the new holder's.
 */
export const UPLOAD_LEASE_MS = 10_000;
/** Renewal is one D1 write; progress renews at most this often, well inside the lease. */
const RENEW_EVERY_MS = UPLOAD_LEASE_MS / 4;

export const leaseRefused = () => new RegistryError("RANGE_INVALID", "another request is writing to this upload; retry within seconds", { status: 416 });
const leaseLost = () => new RegistryError("RANGE_INVALID", "another request took over or cancelled this upload", { status: 416 });

export class UploadLease {
  private renewedAt: number;

  private constructor(
    private readonly db: Db,
    readonly uploadId: string,
    /** Unique to the request: it also names the request's chunk objects, so two holders never write one key. */
    readonly holder: string,
    now: number,
  ) {
    this.renewedAt = now;
  }

  /** The session with its lease, or null when it is unknown or another request's lease still runs. */
  static async take(db: Db, uploadId: string, repositoryPath: string, now = Date.now()): Promise<{ lease: UploadLease; row: UploadRow } | null> {
    const holder = crypto.randomUUID();
    const row = await claimUpload(db, uploadId, repositoryPath, holder, now, UPLOAD_LEASE_MS);
    return row ? { lease: new UploadLease(db, uploadId, holder, now), row } : null;
  }

  /** Called as bytes arrive: renews the lease when due; throws when it was taken over meanwhile. */
  readonly progress = async (): Promise<void> => {
    const now = Date.now();
    if (now - this.renewedAt < RENEW_EVERY_MS) return;
    if (!(await renewUploadLease(this.db, this.uploadId, this.holder, now + UPLOAD_LEASE_MS))) throw leaseLost();
    this.renewedAt = now;
  };

  /** Records the session's chunks and ends the lease; throws when the lease was lost (nothing recorded). */
  async release(state: { offset: number; chunks: UploadChunk[] }): Promise<void> {
    if (!(await releaseUpload(this.db, this.uploadId, this.holder, state))) throw leaseLost();
  }
}
