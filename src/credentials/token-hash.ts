import { sha256HexMemo } from "../crypto/hash-memo";

/**
 * SHA-256 of a bearer token, remembered per isolate for the most recent tokens. Profiling the
 * hot path (bench/RESULTS.md, Profile) showed WebCrypto's digest among the largest costs a
 * token-authenticated request adds to the one-Durable-Object-read floor; a client sends the same
 * token many times, so most requests need no digest at all. This remembers a pure function of the
 * token, never whether the token is valid: every request still asks the token's object, so
 * revocation holds at once (DESIGN, Revocation).
 */
const memo = sha256HexMemo(1024);

export const bearerTokenHash = (token: string): Promise<string> => memo.hash(token);

/** For tests: how many hashes are remembered. */
export const rememberedHashes = (): number => memo.size();
