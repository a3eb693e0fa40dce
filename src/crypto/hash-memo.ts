import { sha256Hex } from "./hash";

/**
 * SHA-256 (hex) of recent values, remembered per isolate: for values a hot path hashes again and
 * again (a client's bearer token, a user's e-mail for the avatar URL). Only pure results are kept,
 * bounded, oldest first out; nothing is persisted.
 */
export function sha256HexMemo(maxEntries: number): { hash(value: string): Promise<string>; size(): number } {
  const memo = new Map<string, string>();
  return {
    async hash(value) {
      const hit = memo.get(value);
      if (hit !== undefined) return hit;
      const digest = await sha256Hex(value);
      if (memo.size >= maxEntries) memo.delete(memo.keys().next().value!);
      memo.set(value, digest);
      return digest;
    },
    size: () => memo.size,
  };
}
