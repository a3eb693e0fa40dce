import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { oauthTokenFamilies } from "../../src/db/schema/oauth";
import { activeGrantsWhoseFamilyIsRevoked, familyStub, revokeFamilies } from "../../src/credentials/oauth-family";
import { makeUser } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish" (integrity check): a directory row marked active whose family's
 * Durable Object is revoked is a finding; the one revocation repairs it, writing only what is missing.
 */
describe("DESIGN Changes that finish: active grant rows whose family is revoked", () => {
  it("a family revoked in its object only is found, and revokeFamilies repairs the directory row", async () => {
    const user = await makeUser();
    const { app } = await makeApp();
    const { ids } = await seedGrants(user.id, app, 2, 2);
    const [planted, healthy] = ids;
    await familyStub(env, planted).revokeAll(Date.now());
    // Just before each id: the walk's next page starts at that row.
    const pageAt = (id: string) => activeGrantsWhoseFamilyIsRevoked(env, { afterId: id.slice(0, -1), limit: 1 });
    expect((await pageAt(planted)).ids).toEqual([planted]);
    expect((await pageAt(healthy)).ids).toEqual([]);

    expect(await revokeFamilies(env, [planted], { actor: null, reason: "integrity_repair" })).toBe(1);
    const [row] = await getDb(env.DB).select().from(oauthTokenFamilies).where(eq(oauthTokenFamilies.id, planted));
    expect(row.status).toBe("revoked");
    expect((await pageAt(planted)).ids).toEqual([]);
  });
});
