import { env } from "cloudflare:test";
import { getDb } from "../../src/db/client";
import { addMember, createGroup, createProject } from "../../src/db/namespaces";
import { createRunner, type NewRunner } from "../../src/db/runners";
import { unique } from "./fixtures";

/** Groups, projects and runners built through the service's repositories on the real D1 binding. */
export async function makeGroup(ownerId: number, opts: { visibility?: string; parentId?: number; path?: string } = {}) {
  const db = getDb(env.DB);
  const path = opts.path ?? unique("grp");
  const parent = opts.parentId ? (await db.query.groups.findFirst({ where: (g, { eq }) => eq(g.id, opts.parentId!) })) ?? null : null;
  return createGroup(db, { name: path, path, parent, visibility: opts.visibility ?? "private", description: "", ownerId });
}

export async function makeProject(ownerId: number, opts: { groupId?: number; groupPath?: string; visibility?: string; path?: string } = {}) {
  const db = getDb(env.DB);
  const path = opts.path ?? unique("prj");
  const namespace = opts.groupId
    ? { kind: "group" as const, id: opts.groupId, fullPath: opts.groupPath! }
    : { kind: "user" as const, id: ownerId, fullPath: unique("ns") };
  return createProject(db, { name: path, path, namespace, visibility: opts.visibility ?? "private", description: "", creatorId: ownerId });
}

export async function addMemberTo(kind: "group" | "project", sourceId: number, userId: number, level: number) {
  await addMember(getDb(env.DB), kind, sourceId, userId, level, null);
}

export async function makeRunner(input: NewRunner) {
  return createRunner(getDb(env.DB), input);
}

export const DAY = 86400_000;
