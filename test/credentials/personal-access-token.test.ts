import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { personalAccessToken } from "../../src/credentials/personal-access-token";
import { resolveToken } from "../../src/credentials/resolve";
import { userChanged } from "../../src/services/accounts/user-changed";
import { blockUser } from "../../src/services/accounts/user-state";
import { sha256Hex } from "../../src/crypto/hash";
import { toHex, randomBytes } from "../../src/crypto/random";
import { getDb } from "../../src/db/client";
import { personalAccessTokens, users } from "../../src/db/schema/accounts";
import type { PatState, PersonalAccessTokenState } from "../../src/durable/personal-access-token";
import type { Bindings } from "../../src/env";
import { eq } from "drizzle-orm";
import { call, makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";

/**
 * Issue 9: personal access tokens on the one-hop path. Each token's state lives in a Durable Object
 * addressed by the token's hash; D1 remains the directory and the source the object loads from.
 */
const stubFor = async (token: string) => {
  const ns = env.PERSONAL_ACCESS_TOKEN as unknown as DurableObjectNamespace<PersonalAccessTokenState>;
  return ns.get(ns.idFromName(`pat:${await sha256Hex(token)}`));
};
const stateOf = async (token: string) =>
  runInDurableObject(await stubFor(token), async (_o: PersonalAccessTokenState, s) => s.storage.kv.get<PatState>("state") ?? null);

/** An env whose D1 throws on any use: proves the Worker side of a request reads no D1. */
const withoutD1 = (): Bindings => ({ ...env, DB: new Proxy({}, { get: () => { throw new Error("D1 used on the hot path"); } }) as D1Database });

const today = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** A token row written the way the service wrote them before the migration: D1 only, no object. */
async function preMigrationToken(userId: number, opts: { body?: string; revoked?: boolean; expiresAt?: string } = {}) {
  const token = `glpat-${opts.body ?? toHex(randomBytes(32))}`;
  await getDb(env.DB).insert(personalAccessTokens).values({
    userId,
    name: unique("old"),
    tokenHash: await sha256Hex(token),
    scopes: "api read_api",
    expiresAt: opts.expiresAt ?? today(30),
    revoked: opts.revoked ?? false,
    createdAt: Date.now() - 86_400_000,
  });
  return token;
}

describe("PAT one hop: the token's object answers validity and the user", () => {
  it("after the first use, a request reads no D1 in the Worker and the object does not reload", async () => {
    const { user, token } = await makeUserWithToken();
    const first = await resolveToken(env, token);
    expect(first.user.id).toBe(user.id);
    const loadedAt = (await stateOf(token))!.user!.at;
    const again = await resolveToken(withoutD1(), token);
    expect(again).toMatchObject({ kind: "personal_access_token", scopes: ["api"], tokenId: String(first.tokenId) });
    expect((await stateOf(token))!.user!.at).toBe(loadedAt);
  });

  it("the object keeps the user without password hash and two-factor secrets", async () => {
    const { token } = await makeUserWithToken();
    await resolveToken(env, token);
    const s = (await stateOf(token))!;
    expect(s.user!.row.passwordHash).toBe("");
    expect(s.user!.row.otpSecretEnc).toBeNull();
    expect(JSON.stringify(s)).not.toContain(token);
  });

  it("a token of the wrong shape is refused without making an object", async () => {
    await expect(personalAccessToken.resolve(env, "glpat-nope")).rejects.toMatchObject({ reason: "invalid" });
    await expect(personalAccessToken.resolve(env, `glpat-${"a".repeat(300)}`)).rejects.toMatchObject({ reason: "invalid" });
  });

  it("last use is written to D1 once per 10 minutes, after the response", async () => {
    const { token } = await makeUserWithToken();
    const deferred: Promise<unknown>[] = [];
    await resolveToken(env, token, (p) => deferred.push(p));
    await resolveToken(env, token, (p) => deferred.push(p));
    expect(deferred).toHaveLength(1);
    await Promise.all(deferred);
    const [row] = await getDb(env.DB).select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenHash, await sha256Hex(token)));
    expect(row.lastUsedAt).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("PAT revocation holds at once everywhere (DESIGN, Revocation)", () => {
  it("DELETE /personal_access_tokens/:id: the next request with the token is 401, REST and Plugin alike", async () => {
    const { token } = await makeUserWithToken();
    expect((await call("/api/v4/user", { token })).status).toBe(200);
    const self = (await (await call("/api/v4/personal_access_tokens/self", { token })).json()) as { id: number };
    expect((await call(`/api/v4/personal_access_tokens/${self.id}`, { method: "DELETE", token })).status).toBe(204);
    const res = await call("/api/v4/user", { token });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "invalid_token" });
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "revoked" });
  });

  it("requests racing a revocation: once it has answered, every request is refused", async () => {
    const { token } = await makeUserWithToken();
    const ok = (await resolveToken(env, token)).tokenId;
    const inFlight = Array.from({ length: 10 }, () => resolveToken(env, token).then(() => "ok", (e) => e.reason));
    const { revokePersonalAccessToken } = await import("../../src/credentials/personal-access-token");
    expect(await revokePersonalAccessToken(env, Number(ok))).toBe(true);
    await Promise.all(inFlight);
    const after = await Promise.all(Array.from({ length: 10 }, () => resolveToken(env, token).then(() => "ok", (e) => e.reason)));
    expect(after).toEqual(Array(10).fill("revoked"));
  });

  it("a revocation that reaches an object that never loaded still wins over its later load", async () => {
    const { user } = await makeUserWithToken();
    const token = await makePat(user.id);
    const [row] = await getDb(env.DB).select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenHash, await sha256Hex(token)));
    const { revokePersonalAccessToken } = await import("../../src/credentials/personal-access-token");
    await revokePersonalAccessToken(env, row.id);
    // Even if D1 were to say otherwise (a stale read), the object's tombstone holds.
    await getDb(env.DB).update(personalAccessTokens).set({ revoked: false }).where(eq(personalAccessTokens.id, row.id));
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "revoked" });
  });
});

describe("PAT migration: tokens created before the one-hop objects existed", () => {
  it("a token written to D1 only (this service's 64-hex form and GitLab's 20-character form) works, then from its object", async () => {
    const user = await makeUser();
    for (const token of [await preMigrationToken(user.id), await preMigrationToken(user.id, { body: "aB3dE5gH7jK9mN1pQ3sT" })]) {
      expect(await stateOf(token)).toBeNull();
      const p = await resolveToken(env, token);
      expect(p).toMatchObject({ kind: "personal_access_token", scopes: ["api", "read_api"] });
      expect(p.user.id).toBe(user.id);
      expect((await stateOf(token))!.hash).toBe(await sha256Hex(token));
      expect((await call("/api/v4/user", { token })).status).toBe(200);
    }
  });

  it("a token revoked or expired before the migration stays refused after it", async () => {
    const user = await makeUser();
    const revoked = await preMigrationToken(user.id, { revoked: true });
    const expired = await preMigrationToken(user.id, { expiresAt: today(-2) });
    await expect(resolveToken(env, revoked)).rejects.toMatchObject({ reason: "revoked" });
    await expect(resolveToken(env, expired)).rejects.toMatchObject({ reason: "expired" });
  });

  it("a token valid through today (UTC) works; its expiry holds from the next day without any write", async () => {
    const user = await makeUser();
    const token = await preMigrationToken(user.id, { expiresAt: today(0) });
    expect((await resolveToken(env, token)).expiresAt).toBe(Date.parse(`${today(0)}T23:59:59.999Z`));
  });
});

describe("user changes reach every PAT at once", () => {
  it("userChanged(): a blocked user's warm token is refused on the next request", async () => {
    const { user, token } = await makeUserWithToken();
    expect((await call("/api/v4/user", { token })).status).toBe(200);
    await getDb(env.DB).update(users).set({ state: "blocked" }).where(eq(users.id, user.id));
    await userChanged(env, user.id);
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "blocked" });
    expect((await call("/api/v4/user", { token })).status).toBe(401);
  });

  it("a change that forgets userChanged() is picked up once the snapshot is older than its TTL", async () => {
    const { user, token } = await makeUserWithToken();
    await resolveToken(env, token);
    await getDb(env.DB).update(users).set({ name: "Renamed Later" }).where(eq(users.id, user.id));
    await runInDurableObject(await stubFor(token), async (_o: PersonalAccessTokenState, s) => {
      const st = s.storage.kv.get<PatState>("state")!;
      st.user!.at = Date.now() - 60_000;
      s.storage.kv.put("state", st);
    });
    expect((await resolveToken(env, token)).user.name).toBe("Renamed Later");
  });

  it("a block (blockUser): OAuth grants revoked, sessions ended, PATs refused while the user is blocked", async () => {
    const { user, token } = await makeUserWithToken();
    const { oauthToken } = await import("../helpers/password-grant");
    const { TEST_PASSWORD } = await import("../helpers/fixtures");
    const { createSession, findSession } = await import("../../src/credentials/session");
    const oauth = await oauthToken(user.username, TEST_PASSWORD);
    const { raw } = await createSession(env, { userId: user.id, pendingTwoFactor: false, ttlMs: 60_000 });
    expect(await findSession(env, raw)).not.toBeNull();
    await resolveToken(env, token);
    const admin = await makeUser({ isAdmin: true });
    expect(await blockUser(env, { id: admin.id, ip: null }, user.id)).toBe(true);
    await expect(resolveToken(env, oauth)).rejects.toMatchObject({ reason: "revoked" });
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "blocked" });
    expect(await findSession(env, raw)).toBeNull();
  });
});

describe("hot path: the per-isolate hash memo (bench/RESULTS.md, Profile)", () => {
  it("remembers only the hash (SHA-256 of the token), bounded; revocation still holds on the next request", async () => {
    const { bearerTokenHash, rememberedHashes } = await import("../../src/credentials/token-hash");
    const { token } = await makeUserWithToken();
    expect(await bearerTokenHash(token)).toBe(await sha256Hex(token));
    expect(await bearerTokenHash(token)).toBe(await sha256Hex(token));
    for (let i = 0; i < 1100; i++) await bearerTokenHash(`glpat-${i}`);
    expect(rememberedHashes()).toBeLessThanOrEqual(1024);
    await resolveToken(env, token);
    const self = (await (await call("/api/v4/personal_access_tokens/self", { token })).json()) as { id: number };
    expect((await call(`/api/v4/personal_access_tokens/${self.id}`, { method: "DELETE", token })).status).toBe(204);
    await expect(resolveToken(env, token)).rejects.toMatchObject({ reason: "revoked" });
  });
});
