import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { addMember as insertMember, findMember, ownerCount, removeMember as deleteMember, updateMember as storeMember, type MemberView } from "../db/namespaces";
import { findUserById } from "../db/users";
import { AccessLevel } from "../domain/access";
import { AppError } from "../domain/errors";
import type { Bindings } from "../env";
import type { CheckedGroup, CheckedProject } from "./abilities";

/**
 * Direct memberships of projects and groups as use cases (DESIGN "Layout", src/services), with
 * GitLab's rules: nobody grants a level above their own, and the last owner of a source is neither
 * demoted nor removed. Each change writes one audit row (member_created, member_updated,
 * member_destroyed) on the project or group, naming the member and the level. The source is a
 * project checked for admin_project or a group checked for admin_group (src/services/abilities.ts),
 * so a source no one checked does not compile; `actorLevel` is the level that check read.
 */

export type MembershipSource = (
  | { kind: "project"; row: CheckedProject<"admin_project"> }
  | { kind: "group"; row: CheckedGroup<"admin_group"> }
) & {
  /** The acting user's access level on the source (administrators: owner). */
  actorLevel: number;
};

type MemberAction = "member_created" | "member_updated" | "member_destroyed";

function audit(env: Bindings, actor: AuditActor, action: MemberAction, source: MembershipSource, m: { userId: number; accessLevel: number; expiresAt: string | null }) {
  return recordAudit(getDb(env.DB), {
    action,
    entityType: source.kind,
    entityId: source.row.id,
    details: { user_id: m.userId, access_level: m.accessLevel, expires_at: m.expiresAt },
    actor,
  });
}

/** Only owners (and administrators) grant owner; nobody grants more than they hold. */
function checkGrant(source: MembershipSource, level: number): void {
  if (level > source.actorLevel) throw new AppError("forbidden", "", { reason: "level_above_own" });
}

const lastOwner = async (env: Bindings, source: MembershipSource, m: MemberView) =>
  m.accessLevel === AccessLevel.OWNER && (await ownerCount(getDb(env.DB), source.kind, source.row.id)) <= 1;

export async function addMember(
  env: Bindings,
  actor: AuditActor,
  source: MembershipSource,
  input: { userId: number; accessLevel: number; expiresAt: string | null },
): Promise<MemberView> {
  checkGrant(source, input.accessLevel);
  const db = getDb(env.DB);
  if (!(await findUserById(db, input.userId))) throw new AppError("not_found", "User Not Found");
  if (!(await insertMember(db, source.kind, source.row.id, input.userId, input.accessLevel, input.expiresAt))) {
    throw new AppError("conflict", "Member already exists");
  }
  await audit(env, actor, "member_created", source, input);
  return (await findMember(db, source.kind, source.row.id, input.userId))!;
}

export async function updateMember(
  env: Bindings,
  actor: AuditActor,
  source: MembershipSource,
  userId: number,
  input: { accessLevel: number; expiresAt?: string | null },
): Promise<MemberView> {
  checkGrant(source, input.accessLevel);
  const db = getDb(env.DB);
  const before = await findMember(db, source.kind, source.row.id, userId);
  if (!before) throw new AppError("not_found", "Not found");
  if (input.accessLevel < AccessLevel.OWNER && (await lastOwner(env, source, before))) {
    throw new AppError("invalid", "The last owner cannot be demoted", { reason: "last_owner" });
  }
  await storeMember(db, source.kind, source.row.id, userId, input);
  const after = (await findMember(db, source.kind, source.row.id, userId))!;
  await audit(env, actor, "member_updated", source, after);
  return after;
}

export async function removeMember(env: Bindings, actor: AuditActor, source: MembershipSource, userId: number): Promise<void> {
  const db = getDb(env.DB);
  const before = await findMember(db, source.kind, source.row.id, userId);
  if (!before) throw new AppError("not_found", "Not found");
  if (await lastOwner(env, source, before)) throw new AppError("invalid", "The last owner cannot be removed", { reason: "last_owner" });
  await deleteMember(db, source.kind, source.row.id, userId);
  await audit(env, actor, "member_destroyed", source, before);
}
