import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { withVars } from "../../src/config";
import { verifyPassword } from "../../src/crypto/password";
import { getDb } from "../../src/db/client";
import { users } from "../../src/db/schema/accounts";
import { ensureRootUser } from "../../src/setup/root-user";

const db = getDb(env.DB);

describe("initial administrator: root created on first start when no user exists", () => {
  beforeEach(async () => {
    // This file owns its storage: start each case from an instance with no users.
    await db.run(sql`DELETE FROM users`);
  });

  it("creates root as an administrator with ROOT_PASSWORD, stored only as a PBKDF2 hash", async () => {
    await ensureRootUser(withVars(env, { ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    const [root] = await db.select().from(users).where(sql`username = 'root'`);
    expect(root.isAdmin).toBe(true);
    expect(root.passwordHash).not.toContain("a-Strong-root-pass-1");
    expect(await verifyPassword("a-Strong-root-pass-1", root.passwordHash)).toBe(true);
  });

  it("does nothing when a user already exists (first start only)", async () => {
    await ensureRootUser(withVars(env, { ROOT_PASSWORD: "a-Strong-root-pass-1" }));
    await ensureRootUser(withVars(env, { ROOT_PASSWORD: "another-Strong-pass-2" }));
    const all = await db.select().from(users);
    expect(all).toHaveLength(1);
    expect(await verifyPassword("a-Strong-root-pass-1", all[0].passwordHash)).toBe(true);
  });

  it("refuses a weak ROOT_PASSWORD and creates no administrator", async () => {
    await ensureRootUser(withVars(env, { ROOT_PASSWORD: "password" }));
    await ensureRootUser(withVars(env, { ROOT_PASSWORD: "short" }));
    expect(await db.select().from(users)).toHaveLength(0);
  });

  it("two concurrent first starts create exactly one root", async () => {
    const e = withVars(env, { ROOT_PASSWORD: "a-Strong-root-pass-1" });
    await Promise.all([ensureRootUser(e), ensureRootUser(e), ensureRootUser(e)]);
    expect(await db.select().from(users)).toHaveLength(1);
  });
});
