import { sha256HexMemo } from "../../crypto/hash-memo";
import type { UserRow } from "../../db/users";

/** Every user entity hashes the e-mail again: remembered per isolate (bench/RESULTS.md, Profile). */
const emailHashes = sha256HexMemo(1024);

/**
 * A user's avatar URL, as /api/v4 publishes it (`avatar_url`) and OpenID Connect does (`picture`).
 * Gravatar accepts SHA-256 of the lower-cased email, as GitLab's default avatar does with MD5.
 */
export async function avatarUrl(user: Pick<UserRow, "email">): Promise<string> {
  return `https://www.gravatar.com/avatar/${await emailHashes.hash(user.email.trim().toLowerCase())}?s=80&d=identicon`;
}
