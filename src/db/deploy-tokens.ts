import { and, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { sha256Hex } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import { DEPLOY_TOKEN_PREFIX, type DeployTokenScope } from "../domain/deploy-token-input";
import type { Db } from "./client";
import { deployTokens } from "./schema/deploy-tokens";
import { formatScopes } from "../domain/scopes";

export type DeployTokenRow = typeof deployTokens.$inferSelect;
export type DeployTokenOwner = { projectId: number } | { groupId: number };

/** Creates the token; the plaintext is returned once and only its SHA-256 is stored. */
export async function createDeployToken(
  db: Db,
  owner: DeployTokenOwner,
  input: { name: string; scopes: DeployTokenScope[]; expiresAt: number | null; username: string | null },
): Promise<{ token: string; row: DeployTokenRow }> {
  const token = randomToken(DEPLOY_TOKEN_PREFIX);
  const [inserted] = await db
    .insert(deployTokens)
    .values({
      projectId: "projectId" in owner ? owner.projectId : null,
      groupId: "groupId" in owner ? owner.groupId : null,
      name: input.name,
      username: input.username ?? "",
      tokenHash: await sha256Hex(token),
      scopes: formatScopes(input.scopes),
      expiresAt: input.expiresAt,
      createdAt: Date.now(),
    })
    .returning();
  if (input.username) return { token, row: inserted };
  // GitLab's default login names the token's id, known only once the row exists.
  const [row] = await db.update(deployTokens).set({ username: `gitlab+deploy-token-${inserted.id}` }).where(eq(deployTokens.id, inserted.id)).returning();
  return { token, row };
}

const ownerCond = (owner: DeployTokenOwner | null): SQL | undefined =>
  owner === null ? undefined : "projectId" in owner ? eq(deployTokens.projectId, owner.projectId) : eq(deployTokens.groupId, owner.groupId);

/** Newest first; `active` keeps tokens neither revoked nor expired at `now`. */
export async function listDeployTokens(db: Db, owner: DeployTokenOwner | null, opts: { active?: boolean; now: number; limit: number; offset: number }) {
  const active = and(eq(deployTokens.revoked, false), or(isNull(deployTokens.expiresAt), gt(deployTokens.expiresAt, opts.now)));
  const where = and(ownerCond(owner), opts.active === undefined ? undefined : opts.active ? active : sql`NOT (${active})`);
  const [rows, [{ n }]] = await db.batch([
    db.select().from(deployTokens).where(where).orderBy(desc(deployTokens.id)).limit(opts.limit).offset(opts.offset),
    db.select({ n: sql<number>`count(*)` }).from(deployTokens).where(where),
  ]);
  return { rows, total: n };
}

export async function getDeployToken(db: Db, owner: DeployTokenOwner, id: number): Promise<DeployTokenRow | null> {
  const [row] = await db.select().from(deployTokens).where(and(eq(deployTokens.id, id), ownerCond(owner))).limit(1);
  return row ?? null;
}

export async function findDeployTokenBySecret(db: Db, token: string): Promise<DeployTokenRow | null> {
  const [row] = await db.select().from(deployTokens).where(eq(deployTokens.tokenHash, await sha256Hex(token))).limit(1);
  return row ?? null;
}

/** GitLab's DELETE destroys the token; every use reads the row, so it stops working at once. */
export async function deleteDeployToken(db: Db, id: number): Promise<void> {
  await db.delete(deployTokens).where(eq(deployTokens.id, id));
}

/** One token by id, whoever owns it (GraphQL's global ids name no owner; the caller checks it). */
export async function findDeployTokenById(db: Db, id: number): Promise<DeployTokenRow | null> {
  const [row] = await db.select().from(deployTokens).where(eq(deployTokens.id, id)).limit(1);
  return row ?? null;
}
