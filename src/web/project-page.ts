import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { getDb } from "../db/client";
import { findProject, projectAccessLevel, type ProjectRow } from "../db/projects";
import { AccessLevel, canReadProject, type Visibility } from "../domain/access";
import type { PageEnv } from "./page";
import { projectRoute } from "../http/router";

/**
 * Project paths in page URLs (`/<namespace>/<project>/...`), as GitLab shapes them: the router
 * hands the project path over as the one parameter `project` (src/http/router.ts).
 */
export const PROJECT_PATH = projectRoute();

/**
 * The project of the URL for the signed-in user: 404 when they may not see it (existence is not
 * revealed), 403 when they see it but lack `minLevel`.
 */
export async function projectForPage(c: Context<PageEnv>, minLevel: number): Promise<{ project: ProjectRow; level: number }> {
  const db = getDb(c.env.DB);
  const user = c.var.user;
  const project = await findProject(db, c.req.param("project") ?? "");
  if (!project) throw new HTTPException(404, { message: "The project you were looking for could not be found." });
  const level = user.isAdmin ? AccessLevel.OWNER : await projectAccessLevel(db, project, user.id);
  if (!canReadProject(project.visibility as Visibility, level, true, user.isAdmin)) throw new HTTPException(404, { message: "The project you were looking for could not be found." });
  if (level < minLevel) throw new HTTPException(403, { message: "You are not allowed to do this in this project." });
  return { project, level };
}

/** Bytes as people read them (GitLab shows MiB with one decimal). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
