import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { applications } from "./schema/applications";
import { oauthTokenFamilies } from "./schema/oauth";

export type TokenFamilyRow = typeof oauthTokenFamilies.$inferSelect;

/** The user's live grants, each with its application's id, Application ID and name. */
export async function activeGrantsOfUser(
  db: Db,
  userId: number,
): Promise<{ family: TokenFamilyRow; app: { id: number; uid: string; name: string } }[]> {
  return db
    .select({ family: oauthTokenFamilies, app: { id: applications.id, uid: applications.uid, name: applications.name } })
    .from(oauthTokenFamilies)
    .innerJoin(applications, eq(applications.id, oauthTokenFamilies.applicationId))
    .where(and(eq(oauthTokenFamilies.userId, userId), eq(oauthTokenFamilies.status, "active")));
}
