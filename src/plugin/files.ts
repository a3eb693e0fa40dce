import type { PluginFileRow } from "../db/plugins";
import { concat } from "../storage/r2-stream";

export { concat };

/** The metadata of a stored file, as SendFile's reply and files.get return it. */
export function fileJson(f: PluginFileRow) {
  return {
    id: f.id,
    name: f.name,
    purpose: f.purpose,
    size: f.size,
    sha256: f.sha256,
    created_at: new Date(f.createdAt).toISOString(),
    processing: JSON.parse(f.processing) as Record<string, unknown>,
  };
}

/** The stored bytes in chunks of exactly `size` bytes (the last may be shorter), read as R2 streams them. */
export async function* readFileChunks(bucket: R2Bucket, key: string, size: number): AsyncGenerator<Uint8Array> {
  const obj = await bucket.get(key);
  if (!obj) return;
  const reader = obj.body.getReader();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) {
        pending.push(value);
        pendingBytes += value.byteLength;
      }
      while (pendingBytes >= size || (done && pendingBytes > 0)) {
        const out = concat(pending, pendingBytes);
        const n = Math.min(size, out.byteLength);
        yield out.subarray(0, n);
        pending = n < out.byteLength ? [out.subarray(n)] : [];
        pendingBytes = out.byteLength - n;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

