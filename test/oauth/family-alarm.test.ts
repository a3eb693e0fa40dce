import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { familyStub } from "../../src/credentials/oauth-family";
import { parseCode, parseRefreshToken } from "../../src/credentials/oauth-token-format";
import { getDb } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema/accounts";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import type { FamilyState, TokenFamily } from "../../src/durable/token-family";
import { signedInUser } from "../helpers/browser";
import { getCode, makeApp, pkce, pkceTokens, refresh, type Tokens } from "./helpers";

/**
 * What a token family's alarm writes to D1 (DESIGN, Refresh tokens 1; docs/architecture.md,
 * Queries: the object's own storage stays in the object, its D1 writes go through src/db).
 */
describe("token family alarm: its D1 writes", () => {
  it("each queued rotation becomes its own token_refreshed row, with the family as entity, the user as author and the time of the rotation", async () => {
    const { app, user, tokens } = await pkceTokens();
    const fid = parseRefreshToken(tokens.refresh_token)!.fid;
    const before = Date.now();
    const first = await refresh(app, tokens.refresh_token);
    expect(first.status).toBe(200);
    const second = await refresh(app, ((await first.json()) as Tokens).refresh_token);
    expect(second.status).toBe(200);
    expect(await runDurableObjectAlarm(familyStub(env, fid))).toBe(true);
    const rows = await getDb(env.DB)
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "token_refreshed"), eq(auditEvents.entityId, fid)));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.entityType).toBe("oauth_token_family");
      expect(row.authorId).toBe(user.id);
      expect(row.createdAt).toBeGreaterThanOrEqual(before);
      expect(row.createdAt).toBeLessThanOrEqual(Date.now());
      expect(JSON.parse(row.details)).toMatchObject({ application_id: app.id });
    }
  });

  it("a code nobody exchanged: once expired, the alarm forgets the family and removes its pending directory row", async () => {
    const { app } = await makeApp({ confidential: false });
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256" });
    const fid = parseCode(code)!.fid;
    const directory = () => getDb(env.DB).select().from(oauthTokenFamilies).where(eq(oauthTokenFamilies.id, fid));
    expect((await directory()).map((r) => r.status)).toEqual(["pending"]);
    await runInDurableObject(familyStub(env, fid), async (_o: TokenFamily, state) => {
      const s = state.storage.kv.get<FamilyState>("state")!;
      s.code!.expiresAt = Date.now() - 1000;
      state.storage.kv.put("state", s);
    });
    expect(await runDurableObjectAlarm(familyStub(env, fid))).toBe(true);
    expect(await directory()).toEqual([]);
    await runInDurableObject(familyStub(env, fid), async (_o: TokenFamily, state) => {
      expect(state.storage.kv.get("state")).toBeUndefined();
    });
  });
});
