import { sql } from "drizzle-orm";
import type { Db } from "./client";

/**
 * A user's groups for the OIDC group claims (docs/oidc.md, "Group claims"; docs/scaling.md): the
 * groups they are a member of and every descendant, with the highest access level each inherits.
 *
 * Bounded: the recursive walk stops after GROUP_CLAIMS_CAP rows (SQLite ends a recursive CTE at
 * its LIMIT), so a user in 30,000 groups costs as much as one in GROUP_CLAIMS_CAP. The walk is
 * breadth-first from the direct memberships (all enqueued before any descendant), so direct
 * memberships come first and descendants fill what is left. It reads members(user_id) and
 * groups(parent_id), never the whole groups table (CROSS JOIN keeps SQLite from walking groups
 * in rowid order for the GROUP BY and probing the walk's result, which reads every group).
 */
export const GROUP_CLAIMS_CAP = 1000;

export interface GroupMembership {
  fullPath: string;
  /** The highest access level, inherited from ancestors included. */
  level: number;
  /** The user is a member of this group itself (not only of an ancestor). */
  direct: boolean;
}

export async function groupMemberships(db: Db, userId: number, cap = GROUP_CLAIMS_CAP): Promise<GroupMembership[]> {
  const rows = await db.all<{ full_path: string; level: number; direct: number }>(sql`
    WITH RECURSIVE g(id, level, direct) AS (
      SELECT source_id, access_level, 1 FROM members WHERE source_type = 'group' AND user_id = ${userId}
      UNION SELECT groups.id, g.level, 0 FROM groups JOIN g ON groups.parent_id = g.id
      LIMIT ${cap}
    )
    SELECT groups.full_path AS full_path, MAX(g.level) AS level, MAX(g.direct) AS direct
    FROM g CROSS JOIN groups ON groups.id = g.id GROUP BY g.id ORDER BY groups.full_path`);
  return rows.map((r) => ({ fullPath: r.full_path, level: r.level, direct: r.direct === 1 }));
}
