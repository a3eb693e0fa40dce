import { env } from "cloudflare:test";
import { getDb } from "../../src/db/client";
import { findPersonalAccessToken } from "../../src/db/personal-access-tokens";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseAccessToken } from "../../src/credentials/oauth-token-format";
import { revokePersonalAccessToken } from "../../src/credentials/personal-access-token";

/** Revokes a token the way the service does for its kind. */
export async function revokeCredential(token: string): Promise<void> {
  const parsed = parseAccessToken(token);
  if (parsed) {
    await familyStub(env, parsed.fid).revokeAll(Date.now());
    return;
  }
  const found = await findPersonalAccessToken(getDb(env.DB), token);
  await revokePersonalAccessToken(env, found!.pat.id);
}
