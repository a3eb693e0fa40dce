import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { AccessLevel } from "../domain/access";
import { ONLINE_WINDOW_MS, STALE_AFTER_MS, type ContactStatus, type RunnerType } from "../domain/runner-status";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { groupsAndDescendants, groupTreeProjectIds } from "./namespaces";
import { groupAncestry } from "./projects";
import { members, projects } from "./schema/projects";
import { runnerProjects, runners } from "./schema/runners";

/**
 * Which runners a listing reads, as plain values (REST and GraphQL parse their own parameters into
 * these; the SQL is written here once): a scope (whose runners) and conditions (which of them).
 */
export type RunnerCondition =
  | { kind: "paused"; paused: boolean }
  | { kind: "contact"; status: ContactStatus; /** From 15.0 stale runners are no longer offline nor never contacted. */ staleSplitsOffline: boolean }
  | { kind: "type"; types: readonly RunnerType[] }
  | { kind: "tag"; tag: string }
  | { kind: "search"; text: string };

export type RunnerScope =
  | { kind: "all" }
  /** Project runners of projects the user maintains, group runners of groups the user owns. */
  | { kind: "managedBy"; userId: number }
  /** GitLab's project runners list: enabled on the project, its ancestor groups' and the instance's. */
  | { kind: "project"; projectId: number; groupId: number | null }
  /** GET /groups/:id/runners: the group's and its ancestors' group runners and the instance's. */
  | { kind: "groupAndAncestors"; groupId: number }
  /** GraphQL Group.runners: DIRECT its own; DESCENDANTS also subgroups' and their projects' runners. */
  | { kind: "groupTree"; groupId: number; membership: "DIRECT" | "DESCENDANTS" };

/** SQL for a contact status, the same for both surfaces (the domain's windows: runner-status.ts). */
function contactCondition(status: ContactStatus, now: number, staleSplitsOffline: boolean): SQL {
  const online = now - ONLINE_WINDOW_MS;
  const stale = now - STALE_AFTER_MS;
  switch (status) {
    case "online":
      return sql`${runners.contactedAt} > ${online}`;
    case "offline":
      return staleSplitsOffline
        ? sql`${runners.contactedAt} <= ${online} AND ${runners.contactedAt} > ${stale}`
        : sql`${runners.contactedAt} <= ${online}`;
    case "stale":
      return sql`(${runners.contactedAt} <= ${stale} OR (${runners.contactedAt} IS NULL AND ${runners.createdAt} <= ${stale}))`;
    case "never_contacted":
      return staleSplitsOffline
        ? sql`${runners.contactedAt} IS NULL AND ${runners.createdAt} > ${stale}`
        : sql`${runners.contactedAt} IS NULL`;
  }
}

function condition(c: RunnerCondition, now: number): SQL {
  switch (c.kind) {
    case "paused":
      return eq(runners.paused, c.paused);
    case "contact":
      return contactCondition(c.status, now, c.staleSplitsOffline);
    case "type":
      return c.types.length === 1 ? eq(runners.runnerType, c.types[0]) : inArray(runners.runnerType, [...c.types]);
    case "tag":
      // Stored tags are comma-joined (src/domain/runner-settings.ts): match one whole tag.
      return sql`(',' || ${runners.tagList} || ',') LIKE ${`%,${c.tag},%`}`;
    case "search":
      return sql`lower(${runners.description}) LIKE ${`%${c.text.toLowerCase()}%`}`;
  }
}

const onProjects = (projectIds: SQL) => inArray(runners.id, sql`(SELECT ${runnerProjects.runnerId} FROM ${runnerProjects} WHERE ${runnerProjects.projectId} IN ${projectIds})`);

/** Ids of the groups where the user's own membership is at least `level`, and their descendants. */
const groupsWithLevel = (userId: number, level: number) =>
  groupsAndDescendants(
    sql`SELECT ${members.sourceId} FROM ${members} WHERE ${members.sourceType} = 'group' AND ${members.userId} = ${userId} AND ${members.accessLevel} >= ${level}`,
  );

/** Ids of the projects the user maintains: direct membership, personal namespace, or a group's. */
const maintainedProjects = (userId: number) => sql`(
  SELECT ${members.sourceId} FROM ${members} WHERE ${members.sourceType} = 'project' AND ${members.userId} = ${userId} AND ${members.accessLevel} >= ${AccessLevel.MAINTAINER}
  UNION SELECT ${projects.id} FROM ${projects} WHERE ${projects.namespaceKind} = 'user' AND ${projects.namespaceId} = ${userId}
  UNION SELECT ${projects.id} FROM ${projects} WHERE ${projects.namespaceKind} = 'group' AND ${projects.namespaceId} IN ${groupsWithLevel(userId, AccessLevel.MAINTAINER)})`;

async function scopeCondition(db: Db, scope: RunnerScope): Promise<SQL | undefined> {
  switch (scope.kind) {
    case "all":
      return undefined;
    case "managedBy":
      return or(onProjects(maintainedProjects(scope.userId)), and(eq(runners.runnerType, "group_type"), inArray(runners.groupId, groupsWithLevel(scope.userId, AccessLevel.OWNER))));
    case "project": {
      const groupIds = scope.groupId === null ? [] : await groupAncestry(db, scope.groupId);
      return or(
        onProjects(sql`(${scope.projectId})`),
        eq(runners.runnerType, "instance_type"),
        groupIds.length ? and(eq(runners.runnerType, "group_type"), inIdList(runners.groupId, groupIds)) : undefined,
      );
    }
    case "groupAndAncestors":
      return or(eq(runners.runnerType, "instance_type"), and(eq(runners.runnerType, "group_type"), inIdList(runners.groupId, await groupAncestry(db, scope.groupId))));
    case "groupTree":
      if (scope.membership === "DIRECT") return and(eq(runners.runnerType, "group_type"), eq(runners.groupId, scope.groupId));
      return or(
        and(eq(runners.runnerType, "group_type"), inArray(runners.groupId, groupsAndDescendants(scope.groupId))),
        and(eq(runners.runnerType, "project_type"), onProjects(groupTreeProjectIds(scope.groupId))),
      );
  }
}

/** The WHERE of a listing: its scope and every condition. */
export async function runnerWhere(db: Db, scope: RunnerScope, conditions: readonly RunnerCondition[], now: number): Promise<SQL | undefined> {
  return and(await scopeCondition(db, scope), ...conditions.map((c) => condition(c, now)));
}

/** The project runners list's scope of a project (GET /projects/:id/runners and the project page). */
export const projectRunnerScope = (project: { id: number; namespaceKind: string; namespaceId: number }): RunnerScope => ({
  kind: "project",
  projectId: project.id,
  groupId: project.namespaceKind === "group" ? project.namespaceId : null,
});
