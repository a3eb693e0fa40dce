import { env } from "cloudflare:test";
import type { ApplicationRow } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { insertFamilyRows } from "../../src/db/oauth-grants";
import { findUserById } from "../../src/db/users";
import { newFamilyId } from "../../src/credentials/oauth-token-format";
import { issueAccessOnlyMany } from "../../src/oauth/issue";

/**
 * Grants at scale (DESIGN, "Changes that finish": fan-out changes are tested at 1,000 records):
 * `withTokens` real grants whose access tokens the test can present (each its own Durable Object,
 * issued as the password grant issues one, src/oauth/issue.ts issueAccessOnlyMany),
 * and the rest as directory rows only (src/db insertFamilyRows), which every fan-out lists and
 * revokes like any other; their objects hold nothing, which revocation accepts.
 */
export async function seedGrants(userId: number, app: ApplicationRow, total: number, withTokens = 8): Promise<{ tokens: string[]; ids: string[] }> {
  const user = (await findUserById(getDb(env.DB), userId))!;
  const issued = await issueAccessOnlyMany(env, { app, userId, scopes: ["api"], grantType: "password", user }, Math.min(withTokens, total));
  const now = Date.now();
  const rows = Array.from({ length: total - issued.length }, () => ({
    id: newFamilyId(),
    applicationId: app.id,
    userId,
    grantType: "authorization_code",
    scopes: "api",
    status: "active",
    createdAt: now,
  }));
  await insertFamilyRows(getDb(env.DB), rows);
  return { tokens: issued.map((i) => i.token), ids: [...issued.map((i) => i.family.id), ...rows.map((r) => r.id)] };
}
