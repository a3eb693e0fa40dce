import { getConfig } from "../config";
import { ExpiringMap } from "../domain/expiring-map";
import type { Bindings } from "../env";

/**
 * Manifests by digest are immutable (the digest is the hash of the bytes), so an isolate may keep
 * what it read of one: media type, size and, for small manifests, the bytes. A GET or HEAD by
 * digest answered from here reads neither D1 nor R2.
 *
 * What can change is whether the repository still holds the manifest (a delete). That is bounded
 * the way the validation cache bounds a revocation (DESIGN, "Validation cache (bounded
 * staleness)"): an entry lives at most VALIDATION_CACHE_SECONDS (0 turns this cache off too), and
 * a delete through this isolate forgets every entry at once. Tags are mutable and never cached.
 */
export interface CachedManifest {
  mediaType: string;
  size: number;
  /** The exact bytes as pushed, or null when the manifest is larger than CONTENT_MAX_BYTES. */
  content: string | null;
}

/** Memory bound: 256 entries of at most 64 KiB content each (16 MiB at worst; typical manifests are 1-2 KiB). */
const MAX_ENTRIES = 256;
export const CONTENT_MAX_BYTES = 64 * 1024;
const entries = new ExpiringMap<CachedManifest>(MAX_ENTRIES);

/** Observable counts (tests and bench assert hits skip the database). */
export const manifestCacheStats = { hits: 0, misses: 0 };

const keyOf = (projectId: number, image: string, digest: string) => `${projectId}\u0000${image}\u0000${digest}`;
const boundMs = (env: Bindings) => getConfig(env).validationCacheSeconds * 1000;

export function recallManifest(env: Bindings, projectId: number, image: string, digest: string, now = Date.now()): CachedManifest | null {
  if (boundMs(env) === 0) return null;
  const hit = entries.get(keyOf(projectId, image, digest), now);
  if (hit) {
    manifestCacheStats.hits++;
    return hit;
  }
  manifestCacheStats.misses++;
  return null;
}

/** Remembers a manifest read at `readAt` (taken before the read), for the bound from then. */
export function rememberManifest(env: Bindings, projectId: number, image: string, digest: string, m: CachedManifest, readAt: number): void {
  const bound = boundMs(env);
  if (bound === 0) return;
  const content = m.size <= CONTENT_MAX_BYTES ? m.content : null;
  entries.set(keyOf(projectId, image, digest), { ...m, content }, readAt + bound);
}

/** A delete through this isolate (manifest, tag, repository): nothing removed is served from here again. */
export function forgetManifests(): void {
  entries.clear();
}
