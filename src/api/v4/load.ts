import type { Context } from "hono";
import { isUniqueViolation } from "../../db/errors";
import { getDb } from "../../db/client";
import { findGroup, findProject, groupAccessLevel, projectAccessLevel, type GroupRow, type ProjectRow } from "../../db/projects";
import { AccessLevel, canReadProject, type Visibility } from "../../domain/access";
import type { AppEnv } from "../../env";
import { z, type ZodType } from "zod";
import { badRequest, forbidden, invalidParam, notFound } from "./errors";

/**
 * Loads the :id of a project or group route (numeric id or URL-encoded full path) and checks the
 * caller's role. GitLab answers 404 for what the caller may not see, 403 for what they may see but
 * not do. Administrators see and may do all.
 */
export async function loadProject(
  c: Context<AppEnv>,
  idOrPath: string,
  minLevel: number = AccessLevel.NONE,
): Promise<{ project: ProjectRow; level: number }> {
  const db = getDb(c.env.DB);
  const project = await findProject(db, idOrPath);
  if (!project) throw notFound("Project Not Found");
  const { user } = c.get("principal");
  const level = user.isAdmin ? AccessLevel.OWNER : await projectAccessLevel(db, project, user.id);
  if (!canReadProject(project.visibility as Visibility, level, true, user.isAdmin)) throw notFound("Project Not Found");
  if (level < minLevel) throw forbidden();
  return { project, level };
}

export async function loadGroup(
  c: Context<AppEnv>,
  idOrPath: string,
  minLevel: number = AccessLevel.NONE,
): Promise<{ group: GroupRow; level: number }> {
  const db = getDb(c.env.DB);
  const group = await findGroup(db, idOrPath);
  if (!group) throw notFound("Group Not Found");
  const { user } = c.get("principal");
  const level = user.isAdmin ? AccessLevel.OWNER : await groupAccessLevel(db, group.id, user.id);
  if (!canReadProject(group.visibility as Visibility, level, true, user.isAdmin)) throw notFound("Group Not Found");
  if (level < minLevel) throw forbidden();
  return { group, level };
}

/** GitLab's ISO 8601 timestamps with milliseconds. */
export const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

export const webUrl = (c: Context, path: string): string => `${new URL(c.req.url).origin}/${path}`;

/** Runs an insert; a unique-index conflict becomes GitLab's 400 `{ message: { <field>: ["has already been taken"] } }`. */
export async function uniqueOr400<T>(field: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (e) {
    if (isUniqueViolation(e)) throw badRequest({ [field]: ["has already been taken"] });
    throw e;
  }
}
